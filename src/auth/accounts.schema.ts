/**
 * The admin accounts' answers, declared once: the handlers' types and, through the swagger CLI
 * plugin, the OpenAPI schemas (auth.repository.ts builds the listed ones in SQL); partners and
 * their keys are in partners.schema.ts.
 */
import { ApiProperty } from '@nestjs/swagger';
import { Int64, NextCursor, Timestamp } from '../openapi/responses.schema';
import type { AdminRole } from './admin-role';

export class CreatedReviewer {
  /** @example 3 */
  @Int64()
  id: number;

  /** @example "alice" */
  name: string;

  /** @example "reviewer" */
  role: AdminRole;

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
  role: AdminRole;
}

export class Reviewer {
  /** @example 3 */
  @Int64()
  id: number;

  /** @example "alice" */
  name: string;

  /** @example "reviewer" */
  role: AdminRole;

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
