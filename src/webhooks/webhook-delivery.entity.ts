import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { isOneOf } from '../database/sql-fragments';
import { WebhookEndpoint } from './webhook-endpoint.entity';

export const DELIVERY_STATES = ['pending', 'delivered', 'given_up', 'dropped'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One event to one endpoint: made by the fan-out, settled by its attempts. */
@Entity('webhook_deliveries')
@Check('ck_webhook_deliveries_state', isOneOf('state', DELIVERY_STATES))
@Index('ix_webhook_deliveries_finished_at', ['finishedAt'])
@Index('ix_webhook_deliveries_to_enqueue', { synchronize: false })
@Index('ix_webhook_deliveries_pending', { synchronize: false })
export class WebhookDelivery {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'webhook_deliveries_pkey' })
  id!: string;

  @Column('bigint', { name: 'webhook_id' })
  webhookId!: string;

  @ManyToOne(() => WebhookEndpoint)
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'webhook_deliveries_webhook_id_fkey' })
  webhook?: Relation<WebhookEndpoint>;

  @Column('bigint')
  sequence!: string;

  @Column('text', { default: 'pending' })
  state!: DeliveryState;

  @Column('boolean', { default: false })
  enqueued!: boolean;

  @Column('integer', { default: 0 })
  attempts!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'finished_at', nullable: true })
  finishedAt!: Date | null;
}
