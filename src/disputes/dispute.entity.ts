import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { DecisionType, DisputeStatus } from './dispute-state';

@Entity({ name: 'disputes' })
export class Dispute {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'market_id', type: 'bigint' })
  marketId: string;

  @Column({ type: 'text' })
  status: DisputeStatus;

  @Column({ name: 'submitter_id', type: 'text' })
  submitterId: string;

  @Column({ name: 'submitter_name', type: 'text' })
  submitterName: string;

  @Column({ name: 'submitter_selection', type: 'text' })
  submitterSelection: string;

  @Column({ name: 'reason_text', type: 'text' })
  reasonText: string;

  @Column({ name: 'submitted_at', type: 'timestamptz' })
  submittedAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'decision_type', type: 'text', nullable: true })
  decisionType: DecisionType | null;

  @Column({ name: 'partner_final_verdict', type: 'text', nullable: true })
  partnerFinalVerdict: string | null;

  @Column({ name: 'decision_reason', type: 'text', nullable: true })
  decisionReason: string | null;

  @Column({ name: 'decided_at', type: 'timestamptz', nullable: true })
  decidedAt: Date | null;

  @Column({ name: 'decided_by', type: 'text', nullable: true })
  decidedBy: string | null;
}
