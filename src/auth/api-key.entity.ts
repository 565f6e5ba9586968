import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { Relation } from 'typeorm';
import { Partner } from './partner.entity';

/** A partner API key. Only its SHA-256 hash and a short display prefix are stored. */
@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'partner_id', type: 'bigint' })
  partnerId: string;

  @ManyToOne(() => Partner, (partner) => partner.keys)
  @JoinColumn({ name: 'partner_id' })
  partner: Relation<Partner>;

  @Column({ name: 'key_hash', type: 'text', select: false })
  keyHash: string;

  @Column({ type: 'text' })
  prefix: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;
}
