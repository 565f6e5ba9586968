import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation, Unique } from 'typeorm';
import { isOneOf } from '../database/sql-fragments';
import { DECISION_TYPES, type DecisionType, DISPUTE_STATUSES, type DisputeStatus } from '../markets/market-state';
import { Market } from '../markets/market.entity';

/** A partner's user's dispute of a market's verdict. One per market: uq_disputes_market_id is the rule (a second is 4091). */
@Entity('disputes')
@Unique('uq_disputes_market_id', ['market'])
@Check('ck_disputes_status', isOneOf('status', DISPUTE_STATUSES))
@Check('ck_disputes_decision_type', `decision_type IS NULL OR ${isOneOf('decision_type', DECISION_TYPES)}`)
@Check(
  'ck_disputes_decision_when_closed',
  "(status = 'open' AND decision_type IS NULL AND decided_at IS NULL) OR (status = 'closed' AND decision_type IS NOT NULL " +
    'AND partner_final_verdict IS NOT NULL AND decision_reason IS NOT NULL AND decided_at IS NOT NULL AND decided_by IS NOT NULL)',
)
@Index('ix_disputes_status_created', ['status', 'createdAt', 'id'])
@Index('ix_disputes_queue', { synchronize: false })
export class Dispute {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'disputes_pkey' })
  id!: string;

  @Column('bigint', { name: 'market_id' })
  marketId!: string;

  @ManyToOne(() => Market, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'market_id', foreignKeyConstraintName: 'disputes_market_id_fkey' })
  market?: Relation<Market>;

  @Column('text', { default: 'open' })
  status!: DisputeStatus;

  @Column('text', { name: 'submitter_id' })
  submitterId!: string;

  @Column('text', { name: 'submitter_name' })
  submitterName!: string;

  @Column('text', { name: 'submitter_selection' })
  submitterSelection!: string;

  @Column('text', { name: 'reason_text' })
  reasonText!: string;

  @Column('timestamptz', { name: 'submitted_at' })
  submittedAt!: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('text', { name: 'decision_type', nullable: true })
  decisionType!: DecisionType | null;

  @Column('text', { name: 'partner_final_verdict', nullable: true })
  partnerFinalVerdict!: string | null;

  @Column('text', { name: 'decision_reason', nullable: true })
  decisionReason!: string | null;

  @Column('timestamptz', { name: 'decided_at', nullable: true })
  decidedAt!: Date | null;

  @Column('text', { name: 'decided_by', nullable: true })
  decidedBy!: string | null;
}
