import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** A partner platform: the source its markets and keys belong to. */
@Entity('partners')
@Unique('uq_partners_source', ['source'])
@Check('ck_partners_source_not_blank', 'length(btrim(source)) > 0')
@Index('uq_partners_source_skeleton', { synchronize: false })
@Index('uq_partners_name_skeleton', { synchronize: false })
export class PartnerAccount {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'partners_pkey' })
  id!: string;

  @Column('text')
  source!: string;

  @Column('text')
  name!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  /** The confusable skeletons of source and name (NULL for twins from before the rule: docs/architecture.md). */
  @Column('text', { name: 'source_skeleton', nullable: true })
  sourceSkeleton!: string | null;

  @Column('text', { name: 'name_skeleton', nullable: true })
  nameSkeleton!: string | null;
}
