/**
 * The back office's account, key and audit shapes, for the OpenAPI document only (as
 * responses.schema.ts: the swagger CLI plugin reads the property types and comments).
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
  reviewers: Reviewer[];
}

export class RevokedReviewer {
  /** @example 3 */
  @Int64()
  id: number;

  /** @example "2026-11-04T10:00:00.000Z" */
  @Timestamp()
  revoked_at: string;
}

export class CreatedPartner {
  /** @example "acme" */
  source: string;

  /** @example "Acme Markets Ltd." */
  name: string;

  /** @example 5 */
  @Int64()
  key_id: number;

  /**
   * Shown once; only its hash is stored.
   * @example "sok_Vb0xq9Lr2mT8sN4cY7wK1eH5uJ3pA6dF"
   */
  api_key: string;
}

export class PartnerKey {
  /** @example 5 */
  @Int64()
  key_id: number;

  /**
   * The first characters of the key, to tell keys apart.
   * @example "sok_Vb0xq9Lr"
   */
  prefix: string;

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

export class Partner {
  /** @example "acme" */
  source: string;

  /** @example "Acme Markets Ltd." */
  name: string;

  /** @example "2026-11-01T10:00:00.000Z" */
  @Timestamp()
  created_at: string;

  keys: PartnerKey[];
}

export class PartnerList {
  partners: Partner[];
}

export class IssuedKey {
  /** @example 6 */
  @Int64()
  key_id: number;

  /**
   * Shown once; only its hash is stored.
   * @example "sok_Qm3Zt8Kc1Rw5Xy0Np7Lh2Vg4Bs6Jd9Fe"
   */
  api_key: string;
}

export class RevokedKey {
  /** @example 5 */
  @Int64()
  key_id: number;

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
