import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { isOneOf } from '../database/sql-fragments';
import { ADMIN_ROLES, type AdminRole } from './admin-role';

/** A back-office account (reviewer or admin) and the hash of its key. */
@Entity('reviewers')
@Unique('uq_reviewers_key_hash', ['keyHash'])
@Check('ck_reviewers_role', isOneOf('role', ADMIN_ROLES))
@Check('ck_reviewers_key_hash_sha256', "key_hash ~ '^[0-9a-f]{64}$'")
@Index('uq_reviewers_name', { synchronize: false })
@Index('uq_reviewers_name_skeleton', { synchronize: false })
@Index('uq_reviewers_name_written_skeleton', { synchronize: false })
export class ReviewerAccount {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'reviewers_pkey' })
  id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  role!: AdminRole;

  @Column('text', { name: 'key_hash' })
  keyHash!: string;

  @Column('text')
  prefix!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  /** The skeletons of the name's lowercase and of the name as written (docs/architecture.md). */
  @Column('text', { name: 'name_skeleton', nullable: true })
  nameSkeleton!: string | null;

  @Column('text', { name: 'name_written_skeleton', nullable: true })
  nameWrittenSkeleton!: string | null;
}
