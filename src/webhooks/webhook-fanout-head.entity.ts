import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** The fan-out's one row: the last change-log sequence turned into deliveries. */
@Entity('webhook_fanout_head')
@Check('webhook_fanout_head_only_row_check', 'only_row')
export class WebhookFanoutHead {
  @PrimaryColumn('boolean', { name: 'only_row', default: true, primaryKeyConstraintName: 'webhook_fanout_head_pkey' })
  onlyRow!: boolean;

  @Column('bigint', { name: 'last_sequence' })
  lastSequence!: string;
}
