import { Column, CreateDateColumn, Entity, OneToMany, PrimaryGeneratedColumn } from 'typeorm';
import type { Relation } from 'typeorm';
import { ApiKey } from './api-key.entity';

@Entity({ name: 'partners' })
export class Partner {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  source: string;

  @Column({ type: 'text' })
  name: string;

  /** skeleton(source), unique; NULL on a twin that predates the rule (ConfusableNames). */
  @Column({ name: 'source_skeleton', type: 'text', nullable: true, select: false })
  sourceSkeleton: string | null;

  /** skeleton(name), unique. */
  @Column({ name: 'name_skeleton', type: 'text', nullable: true, select: false })
  nameSkeleton: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @OneToMany(() => ApiKey, (key) => key.partner)
  keys: Relation<ApiKey[]>;
}
