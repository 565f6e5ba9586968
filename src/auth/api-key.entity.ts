import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation, Unique } from 'typeorm';
import { PartnerAccount } from './partner-account.entity';

/** A partner's API key: only its SHA-256 and a display prefix are kept. */
@Entity('api_keys')
@Unique('uq_api_keys_key_hash', ['keyHash'])
@Check('ck_api_keys_key_hash_sha256', "key_hash ~ '^[0-9a-f]{64}$'")
@Index('ix_api_keys_partner_keys', ['partnerId', 'id'])
export class ApiKey {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'api_keys_pkey' })
  id!: string;

  @Column('bigint', { name: 'partner_id' })
  partnerId!: string;

  @ManyToOne(() => PartnerAccount, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'partner_id', foreignKeyConstraintName: 'api_keys_partner_id_fkey' })
  partner?: Relation<PartnerAccount>;

  @Column('text', { name: 'key_hash' })
  keyHash!: string;

  @Column('text')
  prefix!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  /** Advisory: refreshed at most once a minute per key and instance. */
  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;
}
