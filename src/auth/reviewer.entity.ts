import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const ADMIN_ROLES = ['admin', 'reviewer'] as const;
export type AdminRole = (typeof ADMIN_ROLES)[number];

/** A back-office account. Its key is stored only as a SHA-256 hash plus a display prefix. */
@Entity({ name: 'reviewers' })
export class Reviewer {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  name: string;

  /** skeletonIgnoringCase(name), unique (uq_reviewers_name_skeleton). */
  @Column({ name: 'name_skeleton', type: 'text', nullable: true, select: false })
  nameSkeleton: string | null;

  @Column({ type: 'text' })
  role: AdminRole;

  @Column({ name: 'key_hash', type: 'text', select: false })
  keyHash: string;

  @Column({ type: 'text' })
  prefix: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;
}
