import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An instance reading the change log, and how far it has applied it: a write waits for every live one (the freshness rule). */
@Entity('change_log_readers')
export class ChangeLogReader {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'change_log_readers_pkey' })
  instance!: string;

  @Column('bigint')
  cursor!: string;

  @Column('timestamptz', { name: 'polled_at' })
  polledAt!: Date;
}
