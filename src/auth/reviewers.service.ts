import { Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { caselessNameSkeletons, toStored } from '../common/confusable-skeleton';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { authConfig, type AuthConfig } from '../config/configuration';
import type { Page } from '../database/bounded-page';
import type { Transaction } from '../database/sql';
import type { Reviewer as ReviewerItem } from './accounts.schema';
import type { AdminRole } from './admin-role';
import { AuthRepository, REVIEWER_NAME_TAKEN, type Reviewer } from './auth.repository';
import { generateKey, hashKey } from './key-hashing';

export interface AdminActor {
  /** The reviewer's id; null for the master key. */
  id: string | null;
  /** Recorded as `decided_by` and as the audit trail's actor. */
  name: string;
  role: AdminRole;
}

export const MASTER_ACTOR_NAME = 'master';
const MASTER_SKELETONS = caselessNameSkeletons(MASTER_ACTOR_NAME);

/** Back-office accounts and their keys; the master key from ADMIN_MASTER_KEY. */
@Injectable()
export class ReviewersService {
  private readonly masterKeyHash: Buffer | null;

  constructor(
    private readonly repository: AuthRepository,
    @Inject(authConfig.KEY) config: AuthConfig,
  ) {
    const masterKey = config.adminMasterKey;
    this.masterKeyHash = masterKey ? Buffer.from(hashKey(masterKey), 'hex') : null;
  }

  /** The actor of the key of this SHA-256 (hashKey): the master key's, or an account's. */
  async authenticate(hash: string): Promise<AdminActor | null> {
    if (this.masterKeyHash && timingSafeEqual(this.masterKeyHash, Buffer.from(hash, 'hex'))) {
      return { id: null, name: MASTER_ACTOR_NAME, role: 'admin' };
    }
    return (await this.repository.accountByKey(hash)) ?? null;
  }

  // Decisions and the audit trail name who acted: 4093 if another account (revoked too) or the master key has either
  // of its skeletons. `uq_reviewers_name`, on lower(name), is only SQL's floor.
  async createReviewer(tx: Transaction, given: string, role: AdminRole): Promise<{ reviewer: Reviewer; apiKey: string }> {
    const name = toStored(given);
    const skeletons = caselessNameSkeletons(name);
    if (skeletons.caseless === MASTER_SKELETONS.caseless || skeletons.written === MASTER_SKELETONS.written) throw REVIEWER_NAME_TAKEN;
    const key = generateKey('admin');
    const reviewer = await this.repository.insertReviewer(tx, { name, skeletons, role, key });
    return { reviewer, apiKey: key.key };
  }

  /** A new key for the admin account `name`, created if missing; null when the name is a reviewer's, not an admin's. */
  async replaceAdminKey(tx: Transaction, name: string): Promise<{ id: string; apiKey: string; prefix: string } | null> {
    const key = generateKey('admin');
    const id = await this.repository.replaceAdminKey(tx, name, caselessNameSkeletons(name), key);
    return id === undefined ? null : { id, apiKey: key.key, prefix: key.prefix };
  }

  /** One page of accounts, oldest first (at most PAGE_BYTES of them). */
  listReviewers(page: { afterId?: string; limit: number }): Promise<Page<ReviewerItem>> {
    return this.repository.reviewerPage(page.afterId ?? '0', page.limit);
  }

  /** Idempotent (`revokedNow` false if it already was); the key stops working at once on every instance. */
  async revokeReviewer(tx: Transaction, actor: AdminActor, id: string): Promise<{ reviewer: Reviewer; revokedNow: boolean }> {
    // Not one's own: the last admin account would lock every admin out where no master key is set.
    if (actor.id === id) throw new ApiError(ErrorCatalogue.FORBIDDEN, 'an account cannot revoke itself: another admin, or the master key, can');
    const reviewer = await this.repository.lockReviewerForRevocation(tx, id);
    if (!reviewer) throw new ApiError(ErrorCatalogue.REVIEWER_NOT_FOUND);
    if (reviewer.revokedAt) return { reviewer, revokedNow: false };
    reviewer.revokedAt = new Date();
    await this.repository.revokeReviewer(tx, id, reviewer.revokedAt);
    return { reviewer, revokedNow: true };
  }
}
