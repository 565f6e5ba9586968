/**
 * Partners and their API keys as the admin API answers them, declared once: the handlers' types
 * and, through the swagger CLI plugin, the OpenAPI schemas (auth.repository.ts builds the listed
 * ones in SQL).
 */
import { ApiProperty } from '@nestjs/swagger';
import { Int64, NextCursor, Timestamp } from '../openapi/responses.schema';

/** How many of its keys, the newest, a partner lists with it (contract §4); the rest page on their own. */
export const PARTNER_LISTED_KEYS = 20;

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

  @ApiProperty({
    type: () => [PartnerKey],
    maxItems: PARTNER_LISTED_KEYS,
    description: `Its ${PARTNER_LISTED_KEYS} newest keys at most, newest first: GET /admin/partners/{source}/keys lists them all.`,
  })
  keys: PartnerKey[];
}

export class PartnerList {
  @ApiProperty({ type: () => [Partner], description: 'In registration order (by id).' })
  partners: Partner[];

  @NextCursor('5')
  next_cursor: string | null;
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

export class PartnerKeyDetail extends PartnerKey {
  /**
   * When the key last authenticated a request, to a minute or so (null: never).
   * @example "2026-11-03T08:15:00.000Z"
   */
  @Timestamp({ nullable: true })
  last_used_at: string | null;
}

export class PartnerKeyPage {
  @ApiProperty({ type: () => [PartnerKeyDetail], description: 'Newest first (by key_id).' })
  keys: PartnerKeyDetail[];

  @NextCursor('6')
  next_cursor: string | null;
}
