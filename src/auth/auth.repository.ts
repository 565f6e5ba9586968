import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import DataLoader from 'dataloader';
import { IsNull, type Repository } from 'typeorm';
import type { CaselessNameSkeletons } from '../common/confusable-skeleton';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { boundedPage, type Page, pageOf } from '../database/bounded-page';
import { isUniqueViolation } from '../database/database-errors';
import { raw, Sql, sql, type Statement, type Transaction } from '../database/sql';
import { likeContaining, rfc3339 } from '../database/sql-fragments';
import type { Reviewer as ReviewerItem } from './accounts.schema';
import type { AdminRole } from './admin-role';
import { ApiKey } from './api-key.entity';
import { PartnerAccount } from './partner-account.entity';
import { PARTNER_LISTED_KEYS, type Partner as PartnerItem, type PartnerKeyDetail } from './partners.schema';
import { ReviewerAccount } from './reviewer-account.entity';

/** The holder of a valid (unrevoked) key, found by the key's hash. */
export interface KeyHolder {
  key_hash: string;
  key_id: string;
  partner_id: string;
  source: string;
}

export interface Partner {
  id: string;
  source: string;
  name: string;
}

/** A key as its revocation reads it, under its row lock. */
export interface LockedKey {
  id: string;
  prefix: string;
  revokedAt: Date | null;
}

export interface Reviewer {
  id: string;
  name: string;
  role: AdminRole;
  prefix: string;
  revokedAt: Date | null;
}

/** A key or account as stored: its SHA-256 hash and display prefix, never the key itself. */
export interface StoredKey {
  hash: string;
  prefix: string;
}

const KEY_LOOKUP_BATCH = 100;

/** Past every id: where a newest-first page starts without a cursor. */
const PAST_EVERY_ID = '9223372036854775807';

const KEY_MEMBERS = raw(`'key_id', k.id, 'prefix', k.prefix, 'created_at', ${rfc3339('k.created_at')}, 'revoked_at', ${rfc3339('k.revoked_at')}`);

const taken = (what: string) => new ApiError(ErrorCatalogue.ALREADY_EXISTS, what);
const PARTNER_SOURCE_TAKEN = taken('a partner has that source, or one that reads the same');
const PARTNER_NAME_TAKEN = taken('a partner has that name, or one that reads the same');
export const REVIEWER_NAME_TAKEN = taken('a reviewer account or the master key has that name, or one that reads the same');

/** Partners, their API keys and reviewer accounts: the Auth module's SQL. */
@Injectable()
export class AuthRepository {
  /** One statement per event-loop turn (setImmediate); no memo, so a key revoked a moment ago is refused. A failed statement fails every lookup in it. */
  private readonly holders = new DataLoader(
    async (hashes: readonly string[]) => {
      const rows = await this.sql.rows(sql<KeyHolder>`
        SELECT k.key_hash, k.id AS key_id, p.id AS partner_id, p.source
        FROM api_keys k JOIN partners p ON p.id = k.partner_id
        WHERE k.key_hash = ANY(${hashes}::text[]) AND k.revoked_at IS NULL`);
      const byHash = new Map(rows.map((row) => [row.key_hash, row]));
      return hashes.map((hash) => byHash.get(hash));
    },
    { cache: false, maxBatchSize: KEY_LOOKUP_BATCH, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );

  constructor(
    private readonly sql: Sql,
    @InjectRepository(PartnerAccount) private readonly partners: Repository<PartnerAccount>,
    @InjectRepository(ApiKey) private readonly keys: Repository<ApiKey>,
    @InjectRepository(ReviewerAccount) private readonly reviewers: Repository<ReviewerAccount>,
  ) {}

  keyHolder(hash: string): Promise<KeyHolder | undefined> {
    return this.holders.load(hash);
  }

  async touchKey(keyId: string): Promise<void> {
    await this.keys.update({ id: keyId }, { lastUsedAt: () => 'now()' });
  }

  /** Partner `source`; with `lock`, its limits' advisory lock held until `tx` ends (a row lock needs UPDATE, which the runtime role lacks). */
  async partner(tx: Transaction, source: string, lock = false): Promise<Partner | null> {
    const partner = await tx.withRepository(this.partners).findOne({ select: { id: true, source: true, name: true }, where: { source } });
    if (partner && lock) await tx.query(`SELECT pg_advisory_xact_lock(${ADVISORY_LOCKS.partnerLimitsClass}, ($1::bigint % 2147483647)::int)`, [partner.id]);
    return partner;
  }

  countPartners(): Promise<number> {
    return this.partners.count();
  }

  /** A new partner: 4093 when its source or name, or their skeletons, are another's. */
  async insertPartner(tx: Transaction, partner: { source: string; name: string; sourceSkeleton: string; nameSkeleton: string }): Promise<Partner> {
    try {
      const { identifiers } = await tx.withRepository(this.partners).insert(partner);
      return { id: String(identifiers[0].id), source: partner.source, name: partner.name };
    } catch (error) {
      if (isUniqueViolation(error, 'uq_partners_source', 'uq_partners_source_skeleton')) throw PARTNER_SOURCE_TAKEN;
      if (isUniqueViolation(error, 'uq_partners_name_skeleton')) throw PARTNER_NAME_TAKEN;
      throw error;
    }
  }

  /** An expression holding key `keyId` until its transaction commits; false once it is revoked (hold_partner_key, credential-holds.functions.ts). */
  keyHold(keyId: string): Statement {
    return sql`hold_partner_key(${keyId})`;
  }

  /** On the primary: a revocation is read there first. */
  keyIsActive(keyId: string): Promise<boolean> {
    return this.keys.existsBy({ id: keyId, revokedAt: IsNull() });
  }

  async insertKey(tx: Transaction, partnerId: string, key: StoredKey): Promise<string> {
    const { identifiers } = await tx.withRepository(this.keys).insert({ partnerId, keyHash: key.hash, prefix: key.prefix });
    return String(identifiers[0].id);
  }

  /** Key `keyId` of partner `partnerId`, locked, once the filings in progress with it have committed (FairCredentialHolds). */
  async lockKeyForRevocation(tx: Transaction, partnerId: string, keyId: string): Promise<LockedKey | undefined> {
    await this.sql.rows(sql`SELECT revoking_partner_key(${keyId})`, tx);
    const [key] = await this.sql.rows(
      sql<LockedKey>`SELECT id, prefix, revoked_at AS "revokedAt" FROM api_keys WHERE id = ${keyId} AND partner_id = ${partnerId} LIMIT 1 FOR UPDATE`,
      tx,
    );
    return key;
  }

  async revokeKey(tx: Transaction, keyId: string, at: Date): Promise<void> {
    await tx.withRepository(this.keys).update({ id: keyId }, { revokedAt: at });
  }

  /** Partners in registration order after `afterId`, `contains` in source or name (literally), each with its newest keys. */
  async partnerPage(contains: string | undefined, afterId: string, limit: number): Promise<Page<PartnerItem>> {
    const pattern = contains === undefined ? null : likeContaining(contains);
    // The keys are read for the page's partners only, each from ix_api_keys_partner_keys backwards.
    const page = boundedPage<PartnerItem>(
      sql`SELECT p.id, json_build_object('source', p.source, 'name', p.name, 'created_at', ${raw(rfc3339('p.created_at'))}, 'keys', newest.keys) AS item
      FROM (SELECT id, source, name, created_at FROM partners
        WHERE (${pattern}::text IS NULL OR source ILIKE ${pattern} ESCAPE '\\' OR name ILIKE ${pattern} ESCAPE '\\') AND id > ${afterId}
        ORDER BY id LIMIT ${limit + 1}) p
      CROSS JOIN LATERAL (SELECT COALESCE(json_agg(json_build_object(${KEY_MEMBERS}) ORDER BY k.id DESC), '[]') AS keys
        FROM (SELECT * FROM api_keys WHERE partner_id = p.id ORDER BY id DESC LIMIT ${raw(String(PARTNER_LISTED_KEYS))}) k) newest
      ORDER BY p.id`,
      'id',
    );
    return pageOf(await this.sql.readRows(page), limit);
  }

  /** Partner `source`'s keys before `beforeId`, newest first (ix_api_keys_partner_keys backwards); empty for no such partner. */
  async keyPage(source: string, beforeId: string | undefined, limit: number): Promise<Page<PartnerKeyDetail>> {
    const page = boundedPage<PartnerKeyDetail>(
      sql`SELECT k.id, json_build_object(${KEY_MEMBERS}, 'last_used_at', ${raw(rfc3339('k.last_used_at'))}) AS item
      FROM api_keys k
      WHERE k.partner_id = (SELECT id FROM partners WHERE source = ${source}) AND k.id < ${beforeId ?? PAST_EVERY_ID}
      ORDER BY k.id DESC LIMIT ${limit + 1}`,
      'id DESC',
    );
    return pageOf(await this.sql.readRows(page), limit);
  }

  async partnerExists(source: string): Promise<boolean> {
    return (await this.sql.readRows(sql`SELECT 1 FROM partners WHERE source = ${source}`)).length > 0;
  }

  accountByKey(hash: string): Promise<Pick<Reviewer, 'id' | 'name' | 'role'> | null> {
    return this.reviewers.findOne({ select: { id: true, name: true, role: true }, where: { keyHash: hash, revokedAt: IsNull() } });
  }

  /** A new account: 4093 when its name, in any letter case or as read, is another's. */
  async insertReviewer(tx: Transaction, reviewer: { name: string; skeletons: CaselessNameSkeletons; role: AdminRole; key: StoredKey }): Promise<Reviewer> {
    const { name, skeletons, role, key } = reviewer;
    try {
      const { identifiers } = await tx.withRepository(this.reviewers).insert({
        name,
        role,
        nameSkeleton: skeletons.caseless,
        nameWrittenSkeleton: skeletons.written,
        keyHash: key.hash,
        prefix: key.prefix,
      });
      return { id: String(identifiers[0].id), name, role, prefix: key.prefix, revokedAt: null };
    } catch (error) {
      if (isUniqueViolation(error, 'uq_reviewers_name_skeleton', 'uq_reviewers_name_written_skeleton', 'uq_reviewers_name')) throw REVIEWER_NAME_TAKEN;
      throw error;
    }
  }

  /** Account `id`, locked, once the admin writes in progress by it have committed (AuditTrail.record). */
  async lockReviewerForRevocation(tx: Transaction, id: string): Promise<Reviewer | undefined> {
    await this.sql.rows(sql`SELECT revoking_reviewer(${id})`, tx);
    const [reviewer] = await this.sql.rows(
      sql<Reviewer>`SELECT id, name, role, prefix, revoked_at AS "revokedAt" FROM reviewers WHERE id = ${id} LIMIT 1 FOR UPDATE`,
      tx,
    );
    return reviewer;
  }

  async revokeReviewer(tx: Transaction, id: string, at: Date): Promise<void> {
    await tx.withRepository(this.reviewers).update({ id }, { revokedAt: at });
  }

  /** Admin `name` re-keyed and unrevoked, or created when there is none; undefined when the name is a reviewer's, not an admin's. */
  async replaceAdminKey(tx: Transaction, name: string, skeletons: CaselessNameSkeletons, key: StoredKey): Promise<string | undefined> {
    const [replaced] = await this.sql.rows(
      sql<{ id: string }>`UPDATE reviewers SET key_hash = ${key.hash}, prefix = ${key.prefix}, revoked_at = NULL
        WHERE name = ${name} AND role = 'admin' RETURNING id`,
      tx,
    );
    // No conflict target: names are unique by expression indexes (lower(name), the skeletons).
    const [created] = await this.sql.rows(
      sql<{ id: string }>`INSERT INTO reviewers (name, role, key_hash, prefix, name_skeleton, name_written_skeleton)
        VALUES (${name}, 'admin', ${key.hash}, ${key.prefix}, ${skeletons.caseless}, ${skeletons.written}) ON CONFLICT DO NOTHING RETURNING id`,
      tx,
    );
    return (replaced ?? created)?.id;
  }

  /** Accounts after `afterId`, oldest first. */
  async reviewerPage(afterId: string, limit: number): Promise<Page<ReviewerItem>> {
    const page = boundedPage<ReviewerItem>(
      sql`SELECT r.id, json_build_object('id', r.id, 'name', r.name, 'role', r.role,
        'created_at', ${raw(rfc3339('r.created_at'))}, 'revoked_at', ${raw(rfc3339('r.revoked_at'))}) AS item
      FROM reviewers r WHERE r.id > ${afterId} ORDER BY r.id LIMIT ${limit + 1}`,
      'id',
    );
    return pageOf(await this.sql.readRows(page), limit);
  }
}
