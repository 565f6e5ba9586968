import { Check, Column, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { isOneOf } from '../database/sql-fragments';
import { CHANGE_TYPES, type ChangeType } from './change-event';

/** A change partners can see, appended in the change's transaction (append_market_event); its sequence comes later, from the sequencer. */
@Entity('market_events')
@Unique('uq_market_events_sequence', ['sequence'])
@Check('ck_market_events_type', isOneOf('type', CHANGE_TYPES))
@Index('ix_market_events_source_sequence', ['source', 'sequence'])
@Index('ix_market_events_occurred_at', ['occurredAt'])
@Index('ix_market_events_unsequenced', { synchronize: false })
export class MarketEvent {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'market_events_pkey' })
  id!: string;

  /** What readers page by: given in commit order, never below one already read (change-log.functions.ts). */
  @Column('bigint', { nullable: true })
  sequence!: string | null;

  /** The appending transaction's id (pg_current_xact_id as a number): sequenced once below every running one. */
  @Column('bigint', { default: () => 'current_txid()' })
  txid!: string;

  @Column('text')
  type!: ChangeType;

  @Column('text')
  source!: string;

  @Column('text')
  slug!: string;

  @Column('bigint', { name: 'market_id' })
  marketId!: string;

  /** The market's public record as the change left it. */
  @Column('json')
  market!: unknown;

  @Column('timestamptz', { name: 'occurred_at', default: () => 'now()' })
  occurredAt!: Date;

  /** The primary's WAL position once sequenced (a pg_lsn as text): replicas serve a reader only once they have replayed it. */
  @Column('text', { name: 'sequenced_lsn', nullable: true })
  sequencedLsn!: string | null;
}
