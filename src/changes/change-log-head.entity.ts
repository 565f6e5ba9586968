import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** The change log's one row: the last sequence given, and the last deleted by retention (older cursors: 4102). */
@Entity('change_log_head')
@Check('change_log_head_only_row_check', 'only_row')
export class ChangeLogHead {
  @PrimaryColumn('boolean', { name: 'only_row', default: true, primaryKeyConstraintName: 'change_log_head_pkey' })
  onlyRow!: boolean;

  @Column('bigint', { name: 'last_sequence' })
  lastSequence!: string;

  /** The primary's WAL position at the last sequencing (a pg_lsn as text). */
  @Column('text', { name: 'last_lsn', nullable: true })
  lastLsn!: string | null;

  @Column('bigint', { name: 'deleted_through' })
  deletedThrough!: string;
}
