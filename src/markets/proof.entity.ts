import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { Relation } from 'typeorm';
import type { Chain } from './market-state';
import { Market } from './market.entity';

@Entity({ name: 'proofs' })
export class Proof {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'market_id', type: 'bigint' })
  marketId: string;

  @ManyToOne(() => Market, (market) => market.proofs)
  @JoinColumn({ name: 'market_id' })
  market: Relation<Market>;

  @Column({ type: 'smallint' })
  position: number;

  @Column({ type: 'text' })
  chain: Chain;

  @Column({ name: 'tx_hash', type: 'text' })
  txHash: string;
}
