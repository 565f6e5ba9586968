/**
 * The back office's account and audit shapes, for the OpenAPI document only (as
 * responses.schema.ts: the swagger CLI plugin reads the property types and comments); partners
 * and their keys are in partners.schema.ts.
 */
import { ApiProperty } from '@nestjs/swagger';
import { Int64, NextCursor, Timestamp } from './responses.schema';

export class CreatedReviewer {
  /** @example 3 */
  @Int64()
  id: number;

  /** @example "alice" */
  name: string;

  /** @example "reviewer" */
  role: 'admin' | 'reviewer';

  /**
   * Shown once; only its hash is stored.
   * @example "soa_3q2E8lQy0mFZb4Tt0x1Wc9sYpKf7HnVd"
   */
  api_key: string;
}

export class SignedInAccount {
  /**
   * The reviewer account's id, as GET /admin/reviewers lists it; null for the master key.
   * @example 3
   */
  @ApiProperty({ type: 'integer', format: 'int64', nullable: true })
  id: number | null;

  /** @example "alice" */
  name: string;

  /** @example "admin" */
  role: 'admin' | 'reviewer';
}

export class Reviewer {
  /** @example 3 */
  @Int64()
  id: number;

  /** @example "alice" */
  name: string;

  /** @example "reviewer" */
  role: 'admin' | 'reviewer';

  /** @example "2026-11-01T10:00:00.000Z" */
  @Timestamp()
  created_at: string;

  /**
   * null while the key works.
   * @example "2026-11-04T10:00:00.000Z"
   */
  @Timestamp({ nullable: true })
  revoked_at: string | null;
}

export class ReviewerList {
  @ApiProperty({ type: () => [Reviewer], description: 'Oldest first (by id).' })
  reviewers: Reviewer[];

  @NextCursor('3')
  next_cursor: string | null;
}

export class RevokedReviewer {
  /** @example 3 */
  @Int64()
  id: number;

  /** @example "2026-11-04T10:00:00.000Z" */
  @Timestamp()
  revoked_at: string;
}

export class AuditEvent {
  /** @example 42 */
  @Int64()
  id: number;

  /** @example "2026-11-03T09:30:00.000Z" */
  @Timestamp()
  at: string;

  /**
   * The reviewer's name (`master` for ADMIN_MASTER_KEY).
   * @example "alice"
   */
  actor: string;

  /** @example "dispute.decided" */
  action: string;

  /** @example "dispute:17" */
  target: string;

  /**
   * What the write changed, and the actor's id.
   * @example {"actor_id":3,"type":"keep","market_id":2,"partner_final_verdict":"YES"}
   */
  details: Record<string, unknown>;
}

export class AuditPage {
  @ApiProperty({ type: () => [AuditEvent], description: 'Newest first.' })
  events: AuditEvent[];

  @NextCursor('16')
  next_cursor: string | null;
}
