import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation, Unique } from 'typeorm';
import { isOneOf } from '../database/sql-fragments';
import { CHAINS, type Chain } from './market-state';
import { Market } from './market.entity';

/** An on-chain proof of a resolved market's verdict, in its place among the market's proofs. */
@Entity('proofs')
@Unique('uq_proofs_market_position', ['marketId', 'position'])
@Check('ck_proofs_chain', isOneOf('chain', CHAINS))
export class Proof {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'proofs_pkey' })
  id!: string;

  @Column('bigint', { name: 'market_id' })
  marketId!: string;

  @ManyToOne(() => Market, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'market_id', foreignKeyConstraintName: 'proofs_market_id_fkey' })
  market?: Relation<Market>;

  @Column('smallint')
  position!: number;

  @Column('text')
  chain!: Chain;

  @Column('text', { name: 'tx_hash' })
  txHash!: string;
}
