import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One admin write, appended in the same transaction as the write itself. */
@Entity({ name: 'audit_events' })
export class AuditEvent {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  at: Date;

  @Column({ type: 'text' })
  actor: string;

  @Column({ type: 'text' })
  action: string;

  @Column({ type: 'text' })
  target: string;

  @Column({ type: 'jsonb' })
  details: Record<string, unknown>;
}
