import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import type { EntityManager } from 'typeorm';
import { skeleton, toStored } from '../common/confusable-skeleton';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { boundedPage, type Page, pageOf, type PageRow } from '../database/bounded-page';
import { isUniqueViolation } from '../database/database-errors';
import { Sql, statement } from '../database/sql';
import { likeContaining, rfc3339 } from '../database/sql-fragments';
import { type KeyView, PARTNER_LISTED_KEYS, type PartnerView } from './account-listings';
import { ApiKey } from './api-key.entity';
import { generateKey, hashKey } from './key-hashing';
import { Partner } from './partner.entity';

/** The partner behind a valid `x-api-key`. */
export interface AuthenticatedPartner {
  partnerId: string;
  source: string;
  keyId: string;
}

export interface IssuedKey {
  keyId: string;
  apiKey: string;
}

interface KeyHolder {
  key_hash: string;
  key_id: string;
  partner_id: string;
  source: string;
}

/** The holders of valid (unrevoked) keys, by the keys' hashes (an index lookup each). */
const KEY_HOLDERS = statement<KeyHolder>(`
  SELECT k.key_hash, k.id AS key_id, p.id AS partner_id, p.source
  FROM api_keys k JOIN partners p ON p.id = k.partner_id
  WHERE k.key_hash = ANY($1::text[]) AND k.revoked_at IS NULL`);
const KEY_LOOKUP_BATCH = 100;
const TOUCH_KEY = statement('UPDATE api_keys SET last_used_at = now() WHERE id = $1');
// Waits for the filings in progress with the key (migration FairCredentialHolds).
const REVOKING_KEY = statement('SELECT revoking_partner_key($1)');

const TOUCH_INTERVAL_MS = 60_000;

/** Past every id: where a newest-first page starts without a cursor. */
const PAST_EVERY_ID = '9223372036854775807';

const KEY_MEMBERS = `'key_id', k.id, 'prefix', k.prefix, 'created_at', ${rfc3339('k.created_at')}, 'revoked_at', ${rfc3339('k.revoked_at')}`;

// In registration order, after partner $2; $1 an ILIKE pattern (likeContaining) on source or
// name. The keys are read for the page's partners only, each from ix_api_keys_partner_keys
// backwards: a partner with 100k keys costs PARTNER_LISTED_KEYS index entries.
const PARTNER_PAGE = statement<PageRow<PartnerView>>(
  boundedPage(
    `SELECT p.id, json_build_object('source', p.source, 'name', p.name, 'created_at', ${rfc3339('p.created_at')}, 'keys', newest.keys) AS item
    FROM (SELECT id, source, name, created_at FROM partners
      WHERE ($1::text IS NULL OR source ILIKE $1 ESCAPE '\\' OR name ILIKE $1 ESCAPE '\\') AND id > $2
      ORDER BY id LIMIT $3) p
    CROSS JOIN LATERAL (SELECT COALESCE(json_agg(json_build_object(${KEY_MEMBERS}) ORDER BY k.id DESC), '[]') AS keys
      FROM (SELECT * FROM api_keys WHERE partner_id = p.id ORDER BY id DESC LIMIT ${PARTNER_LISTED_KEYS}) k) newest
    ORDER BY p.id`,
    'id',
  ),
);
// Partner $1's keys before key $2, newest first (ix_api_keys_partner_keys backwards).
const KEY_PAGE = statement<PageRow<KeyView>>(
  boundedPage(
    `SELECT k.id, json_build_object(${KEY_MEMBERS}, 'last_used_at', ${rfc3339('k.last_used_at')}) AS item
    FROM api_keys k
    WHERE k.partner_id = (SELECT id FROM partners WHERE source = $1) AND k.id < $2
    ORDER BY k.id DESC LIMIT $3`,
    'id DESC',
  ),
);
const PARTNER_EXISTS = statement('SELECT 1 FROM partners WHERE source = $1');

const taken = (field: 'source' | 'name') => new ApiError(ErrorCatalogue.ALREADY_EXISTS, `a partner has that ${field}, or one that reads the same`);

/** A new API key for partner `partnerId`: only its hash and display prefix are stored. */
export async function issuePartnerKey(manager: EntityManager, partnerId: string): Promise<IssuedKey> {
  const generated = generateKey('partner');
  const key = await manager.save(manager.create(ApiKey, { partnerId, keyHash: generated.hash, prefix: generated.prefix }));
  return { keyId: key.id, apiKey: generated.key };
}

/** Partners and their API keys: creation, lookup by key, revocation, the admin listings. */
@Injectable()
export class PartnerKeysService {
  // When this process last wrote each key's last_used_at: the column is advisory, so it is
  // refreshed at most once a minute per key instead of on every request.
  private readonly lastTouched = new Map<string, number>();

  /**
   * The keys authenticated in one turn of the event loop are looked up by one statement, up to
   * KEY_LOOKUP_BATCH of them, dispatched once that turn's I/O is handled (setImmediate), as the
   * public read's misses are (MarketsService): one round trip and one pool connection for many
   * requests instead of one each. No memo: a key revoked a moment ago is refused. A statement
   * that fails (the pool's wait, the database) fails every lookup in it, each request with it.
   */
  private readonly holders = new DataLoader(
    async (hashes: readonly string[]) => {
      const rows = await this.sql.rows(KEY_HOLDERS, [hashes]);
      const byHash = new Map(rows.map((row) => [row.key_hash, row]));
      return hashes.map((hash) => byHash.get(hash));
    },
    { cache: false, maxBatchSize: KEY_LOOKUP_BATCH, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );

  constructor(private readonly sql: Sql) {}

  async authenticate(apiKey: string): Promise<AuthenticatedPartner | null> {
    const holder = await this.holders.load(hashKey(apiKey));
    if (!holder) return null;
    const { key_id: keyId, partner_id: partnerId, source } = holder;
    this.touch(keyId);
    return { keyId, partnerId, source };
  }

  /** The partner owning `source` (4042 when there is none). */
  async requirePartner(manager: EntityManager, source: string): Promise<Partner> {
    // A path segment may decode to U+0000, which PostgreSQL text cannot hold: no such partner.
    if (source.includes('\u0000')) throw new ApiError(ErrorCatalogue.PARTNER_NOT_FOUND);
    const partner = await manager.findOne(Partner, { where: { source } });
    if (!partner) throw new ApiError(ErrorCatalogue.PARTNER_NOT_FOUND);
    return partner;
  }

  /**
   * A new partner, source and name stored in NFC, and its first key: 4093 when another partner's
   * source, or name, has the same skeleton (only this check reads sources as people do: lookups
   * compare them as stored).
   */
  async createPartner(manager: EntityManager, givenSource: string, givenName: string): Promise<{ partner: Partner } & IssuedKey> {
    const [source, name] = [toStored(givenSource), toStored(givenName)];
    let partner: Partner;
    try {
      partner = await manager.save(manager.create(Partner, { source, name, sourceSkeleton: skeleton(source), nameSkeleton: skeleton(name) }));
    } catch (error) {
      if (isUniqueViolation(error, 'uq_partners_source', 'uq_partners_source_skeleton')) throw taken('source');
      if (isUniqueViolation(error, 'uq_partners_name_skeleton')) throw taken('name');
      throw error;
    }
    const issued = await this.issueKey(manager, partner.id);
    return { partner, ...issued };
  }

  /** One page of partners in registration order (at most PAGE_BYTES of them), `q` in source or name. */
  async listPartners(page: { contains?: string; afterId?: string; limit: number }): Promise<Page<PartnerView>> {
    const pattern = page.contains === undefined ? null : likeContaining(page.contains);
    return pageOf(await this.sql.readRows(PARTNER_PAGE, [pattern, page.afterId ?? '0', page.limit + 1]), page.limit);
  }

  /** One page of partner `source`'s keys, newest first (4042 when there is no such partner). */
  async listKeys(source: string, page: { beforeId?: string; limit: number }): Promise<Page<KeyView>> {
    if (source.includes('\u0000')) throw new ApiError(ErrorCatalogue.PARTNER_NOT_FOUND);
    const rows = await this.sql.readRows(KEY_PAGE, [source, page.beforeId ?? PAST_EVERY_ID, page.limit + 1]);
    // A partner is registered with a key: a page finds none only for an unknown partner, or past its
    // oldest key; only then is it worth a second statement to tell which.
    if (rows.length === 0 && (await this.sql.readRows(PARTNER_EXISTS, [source])).length === 0) {
      throw new ApiError(ErrorCatalogue.PARTNER_NOT_FOUND);
    }
    return pageOf(rows, page.limit);
  }

  /**
   * Revokes one of a partner's keys (idempotent: `revokedNow` is false if it already was); it
   * stops working at once on every instance, and no filing made with it commits after it.
   */
  async revokeKey(manager: EntityManager, partnerId: string, keyId: string): Promise<{ key: ApiKey; revokedNow: boolean }> {
    await this.sql.rows(REVOKING_KEY, [keyId], manager);
    const key = await manager.findOne(ApiKey, { where: { id: keyId, partnerId }, lock: { mode: 'pessimistic_write' } });
    if (!key) throw new ApiError(ErrorCatalogue.API_KEY_NOT_FOUND);
    if (key.revokedAt) return { key, revokedNow: false };
    key.revokedAt = new Date();
    await manager.update(ApiKey, keyId, { revokedAt: key.revokedAt });
    return { key, revokedNow: true };
  }

  issueKey(manager: EntityManager, partnerId: string): Promise<IssuedKey> {
    return issuePartnerKey(manager, partnerId);
  }

  /** Records that key `keyId` was used (its advisory last_used_at, at most once a minute). */
  touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.lastTouched.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(keyId, now);
    this.sql.rows(TOUCH_KEY, [keyId]).catch(() => this.lastTouched.delete(keyId));
  }
}
