import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import type { EntityManager } from 'typeorm';
import { skeleton, toStored } from '../common/confusable-skeleton';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { isUniqueViolation } from '../database/database-errors';
import { Sql, statement } from '../database/sql';
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

const taken = (field: 'source' | 'name') => new ApiError(ErrorCatalogue.ALREADY_EXISTS, `a partner has that ${field}, or one that reads the same`);

/** A new API key for partner `partnerId`: only its hash and display prefix are stored. */
export async function issuePartnerKey(manager: EntityManager, partnerId: string): Promise<IssuedKey> {
  const generated = generateKey('partner');
  const key = await manager.save(manager.create(ApiKey, { partnerId, keyHash: generated.hash, prefix: generated.prefix }));
  return { keyId: key.id, apiKey: generated.key };
}

/** Partners and their API keys: creation, lookup by key, revocation. */
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

  async listPartners(manager: EntityManager): Promise<Partner[]> {
    return manager.find(Partner, { relations: { keys: true }, order: { id: 'ASC', keys: { id: 'ASC' } } });
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
