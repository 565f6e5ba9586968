import { Column, CreateDateColumn, Entity, OneToMany, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Relation } from 'typeorm';
import type { Confidence, MarketStatus } from './market-state';
import { Proof } from './proof.entity';

@Entity({ name: 'markets' })
export class Market {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  source: string;

  @Column({ type: 'text' })
  slug: string;

  /** skeleton(slug), unique within the source; NULL on a twin that predates the rule (ConfusableNames). */
  @Column({ name: 'slug_skeleton', type: 'text', nullable: true, select: false })
  slugSkeleton: string | null;

  @Column({ type: 'text' })
  status: MarketStatus;

  @Column({ type: 'text', nullable: true })
  verdict: string | null;

  @Column({ type: 'text', nullable: true })
  confidence: Confidence | null;

  @Column({ type: 'text', nullable: true })
  reasoning: string | null;

  @Column({ name: 'resolved_at', type: 'timestamptz', nullable: true })
  resolvedAt: Date | null;

  @OneToMany(() => Proof, (proof) => proof.market)
  proofs: Relation<Proof[]>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
