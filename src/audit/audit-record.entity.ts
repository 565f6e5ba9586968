import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One admin write in the audit trail; append-only (a trigger refuses UPDATE, DELETE and TRUNCATE). Each filter of GET /admin/audit has its index. */
@Entity('audit_events')
@Index('ix_audit_events_actor', ['actor', 'id'])
@Index('ix_audit_events_action', ['action', 'id'])
@Index('ix_audit_events_target', ['target', 'id'])
@Index('ix_audit_events_at', ['at', 'id'])
export class AuditRecord {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'audit_events_pkey' })
  id!: string;

  @Column('timestamptz', { default: () => 'now()' })
  at!: Date;

  /** The account's name, or `master`. */
  @Column('text')
  actor!: string;

  @Column('text')
  action!: string;

  @Column('text')
  target!: string;

  /** Never a key or any other secret. */
  @Column('jsonb', { default: {} })
  details!: object;
}
