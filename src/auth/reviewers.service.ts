import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { timingSafeEqual } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { skeletonIgnoringCase, toStored } from '../common/confusable-skeleton';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { Environment } from '../config/environment';
import { boundedPage, type Page, pageOf, type PageRow } from '../database/bounded-page';
import { isUniqueViolation } from '../database/database-errors';
import { Sql, statement } from '../database/sql';
import { rfc3339 } from '../database/sql-fragments';
import type { ReviewerView } from './account-listings';
import { generateKey, hashKey } from './key-hashing';
import { type AdminRole, Reviewer } from './reviewer.entity';

/** Who is calling the admin API. */
export interface AdminActor {
  /** The reviewer's id; null for the master key. */
  id: string | null;
  /** Recorded as `decided_by` and as the audit trail's actor. */
  name: string;
  role: AdminRole;
}

export const MASTER_ACTOR_NAME = 'master';
const MASTER_SKELETON = skeletonIgnoringCase(MASTER_ACTOR_NAME);

const nameTaken = () => new ApiError(ErrorCatalogue.ALREADY_EXISTS, 'a reviewer account or the master key has that name, or one that reads the same');

const ACCOUNT_BY_KEY = statement<AdminActor & { id: string }>('SELECT id, name, role FROM reviewers WHERE key_hash = $1 AND revoked_at IS NULL');
// Waits for the admin writes in progress by the account (AuditTrail.record).
const REVOKING_REVIEWER = statement('SELECT revoking_reviewer($1)');
// Oldest first, after account $1.
const REVIEWER_PAGE = statement<PageRow<ReviewerView>>(
  boundedPage(
    `SELECT r.id, json_build_object('id', r.id, 'name', r.name, 'role', r.role,
      'created_at', ${rfc3339('r.created_at')}, 'revoked_at', ${rfc3339('r.revoked_at')}) AS item
    FROM reviewers r WHERE r.id > $1 ORDER BY r.id LIMIT $2`,
    'id',
  ),
);

/** Back-office accounts and their keys; the master key from ADMIN_MASTER_KEY. */
@Injectable()
export class ReviewersService {
  private readonly masterKeyHash: Buffer | null;

  constructor(
    private readonly sql: Sql,
    config: ConfigService<Environment, true>,
  ) {
    const masterKey = config.get('ADMIN_MASTER_KEY', { infer: true });
    this.masterKeyHash = masterKey ? Buffer.from(hashKey(masterKey), 'hex') : null;
  }

  async authenticate(key: string): Promise<AdminActor | null> {
    const hash = hashKey(key);
    if (this.masterKeyHash && timingSafeEqual(this.masterKeyHash, Buffer.from(hash, 'hex'))) {
      return { id: null, name: MASTER_ACTOR_NAME, role: 'admin' };
    }
    const [account] = await this.sql.rows(ACCOUNT_BY_KEY, [hash]);
    return account ?? null;
  }

  /**
   * A new account, its name in NFC and its own as people read it, since decisions and the audit
   * trail name who acted: 4093 if another account's (revoked or not) or the master key's has the
   * same skeleton whatever the letter case (`uq_reviewers_name`, on lower(name), is SQL's floor).
   */
  async createReviewer(manager: EntityManager, given: string, role: AdminRole): Promise<{ reviewer: Reviewer; apiKey: string }> {
    const name = toStored(given);
    const nameSkeleton = skeletonIgnoringCase(name);
    if (nameSkeleton === MASTER_SKELETON) throw nameTaken();
    const generated = generateKey('admin');
    let reviewer: Reviewer;
    try {
      reviewer = await manager.save(manager.create(Reviewer, { name, nameSkeleton, role, keyHash: generated.hash, prefix: generated.prefix }));
    } catch (error) {
      if (isUniqueViolation(error, 'uq_reviewers_name_skeleton', 'uq_reviewers_name')) throw nameTaken();
      throw error;
    }
    return { reviewer, apiKey: generated.key };
  }

  /** One page of accounts, oldest first (at most PAGE_BYTES of them). */
  async listReviewers(page: { afterId?: string; limit: number }): Promise<Page<ReviewerView>> {
    return pageOf(await this.sql.readRows(REVIEWER_PAGE, [page.afterId ?? '0', page.limit + 1]), page.limit);
  }

  /**
   * Revokes a reviewer's key (idempotent: `revokedNow` is false if it already was): it stops
   * working at once on every instance. An account cannot revoke itself (4031).
   */
  async revokeReviewer(manager: EntityManager, actor: AdminActor, id: string): Promise<{ reviewer: Reviewer; revokedNow: boolean }> {
    // Not one's own: the last admin account would lock every admin out where no master key is set.
    if (actor.id === id) throw new ApiError(ErrorCatalogue.FORBIDDEN, 'an account cannot revoke itself: another admin, or the master key, can');
    await this.sql.rows(REVOKING_REVIEWER, [id], manager);
    const reviewer = await manager.findOne(Reviewer, { where: { id }, lock: { mode: 'pessimistic_write' } });
    if (!reviewer) throw new ApiError(ErrorCatalogue.REVIEWER_NOT_FOUND);
    if (reviewer.revokedAt) return { reviewer, revokedNow: false };
    reviewer.revokedAt = new Date();
    await manager.update(Reviewer, id, { revokedAt: reviewer.revokedAt });
    return { reviewer, revokedNow: true };
  }
}
