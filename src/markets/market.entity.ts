import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation, Unique, UpdateDateColumn } from 'typeorm';
import { PartnerAccount } from '../auth/partner-account.entity';
import { isOneOf } from '../database/sql-fragments';
import { CONFIDENCES, type Confidence, MARKET_STATUSES, type MarketStatus } from './market-state';

/** A market of a partner's source, and once resolved its verdict (its public record: market-item.ts). */
@Entity('markets')
@Unique('uq_markets_source_slug', ['source', 'slug'])
@Check('ck_markets_status', isOneOf('status', MARKET_STATUSES))
@Check('ck_markets_confidence', `confidence IS NULL OR ${isOneOf('confidence', CONFIDENCES)}`)
@Check(
  'ck_markets_resolution_complete',
  "status = 'monitoring' OR (verdict IS NOT NULL AND confidence IS NOT NULL AND reasoning IS NOT NULL AND resolved_at IS NOT NULL)",
)
@Check('ck_markets_slug_not_blank', 'length(slug) > 0')
@Index('uq_markets_source_slug_skeleton', { synchronize: false })
export class Market {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'markets_pkey' })
  id!: string;

  @Column('text')
  source!: string;

  @ManyToOne(() => PartnerAccount)
  @JoinColumn({ name: 'source', referencedColumnName: 'source', foreignKeyConstraintName: 'markets_source_fkey' })
  partner?: Relation<PartnerAccount>;

  @Column('text')
  slug!: string;

  @Column('text', { default: 'monitoring' })
  status!: MarketStatus;

  @Column('text', { nullable: true })
  verdict!: string | null;

  @Column('text', { nullable: true })
  confidence!: Confidence | null;

  @Column('text', { nullable: true })
  reasoning!: string | null;

  @Column('timestamptz', { name: 'resolved_at', nullable: true })
  resolvedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  /** Its confusable skeleton, unique within the source (NULL for twins from before the rule). */
  @Column('text', { name: 'slug_skeleton', nullable: true })
  slugSkeleton!: string | null;
}
