import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { PartnerAccount } from '../auth/partner-account.entity';

/** A partner's registered webhook endpoint (`webhook_id` in the API), its signing secrets and its last delivery. */
@Entity('webhooks')
@Index('ix_webhooks_source', { synchronize: false })
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'webhooks_pkey' })
  id!: string;

  @Column('text')
  source!: string;

  @ManyToOne(() => PartnerAccount)
  @JoinColumn({ name: 'source', referencedColumnName: 'source', foreignKeyConstraintName: 'webhooks_source_fkey' })
  partner?: Relation<PartnerAccount>;

  @Column('text')
  url!: string;

  @Column('text', { nullable: true })
  description!: string | null;

  /** `whsec_…`, kept as given: the service signs with it. */
  @Column('text')
  secret!: string;

  @Column('text', { name: 'previous_secret', nullable: true })
  previousSecret!: string | null;

  @Column('timestamptz', { name: 'previous_secret_until', nullable: true })
  previousSecretUntil!: Date | null;

  /** The change log's head at registration: events sequenced after it are delivered. */
  @Column('bigint', { name: 'after_sequence' })
  afterSequence!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'disabled_at', nullable: true })
  disabledAt!: Date | null;

  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;

  @Column('timestamptz', { name: 'last_delivery_at', nullable: true })
  lastDeliveryAt!: Date | null;

  @Column('integer', { name: 'last_delivery_status', nullable: true })
  lastDeliveryStatus!: number | null;

  @Column('text', { name: 'last_delivery_error', nullable: true })
  lastDeliveryError!: string | null;

  /** The greatest sequence delivered (a 2xx): kept here, it outlives the deliveries' rows. */
  @Column('bigint', { name: 'last_delivered_sequence', nullable: true })
  lastDeliveredSequence!: string | null;
}
