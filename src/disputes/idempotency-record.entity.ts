import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A filing's answer remembered under its Idempotency-Key (contract §8), per source, for 25 hours. */
@Entity('idempotency_keys')
@Index('ix_idempotency_keys_created_at', ['createdAt'])
export class IdempotencyRecord {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'idempotency_keys_pkey' })
  source!: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'idempotency_keys_pkey' })
  key!: string;

  /** SHA-256 of the request's JSON value: the same key with another body is 4095. */
  @Column('text', { name: 'request_hash' })
  requestHash!: string;

  @Column('text')
  outcome!: string;

  @Column('bigint', { name: 'dispute_id', nullable: true })
  disputeId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
