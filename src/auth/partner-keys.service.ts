import { Injectable } from '@nestjs/common';
import { skeleton, toStored } from '../common/confusable-skeleton';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { Page } from '../database/bounded-page';
import type { Statement, Transaction } from '../database/sql';
import { AuthRepository, type LockedKey, type Partner } from './auth.repository';
import { generateKey } from './key-hashing';
import type { Partner as PartnerItem, PartnerKeyDetail } from './partners.schema';

export interface AuthenticatedPartner {
  partnerId: string;
  source: string;
  keyId: string;
}

export interface IssuedKey {
  keyId: string;
  apiKey: string;
}

const TOUCH_INTERVAL_MS = 60_000;

@Injectable()
export class PartnerKeysService {
  // When this process last wrote each key's last_used_at: the column is advisory, so it is
  // refreshed at most once a minute per key instead of on every request.
  private readonly lastTouched = new Map<string, number>();

  constructor(private readonly repository: AuthRepository) {}

  /** The partner of the key of this SHA-256 (hashKey), looked up with the other keys of this turn of the event loop. */
  async authenticate(keyHash: string): Promise<AuthenticatedPartner | null> {
    const holder = await this.repository.keyHolder(keyHash);
    if (!holder) return null;
    const { key_id: keyId, partner_id: partnerId, source } = holder;
    this.touch(keyId);
    return { keyId, partnerId, source };
  }

  /** Whether key `keyId` still works (a request it authenticated may outlive its revocation: a long poll). */
  keyIsActive(keyId: string): Promise<boolean> {
    return this.repository.keyIsActive(keyId);
  }

  /** A boolean expression holding key `keyId` until its transaction commits (its revocation waits for the write): false once it is revoked (4011). */
  keyHold(keyId: string): Statement {
    return this.repository.keyHold(keyId);
  }

  /** The partner owning `source` (4042 when there is none); `lock`: its row held until `tx` ends, so a limit counted per partner holds. */
  async requirePartner(tx: Transaction, source: string, { lock = false } = {}): Promise<Partner> {
    // A path segment may decode to U+0000, which PostgreSQL text cannot hold: no such partner.
    const partner = source.includes('\u0000') ? undefined : await this.repository.partner(tx, source, lock);
    if (!partner) throw new ApiError(ErrorCatalogue.PARTNER_NOT_FOUND);
    return partner;
  }

  /** 4042 unless partner `source` exists. */
  async requireSource(source: string): Promise<void> {
    if (source.includes('\u0000') || !(await this.repository.partnerExists(source))) throw new ApiError(ErrorCatalogue.PARTNER_NOT_FOUND);
  }

  async hasPartners(): Promise<boolean> {
    return (await this.repository.countPartners()) > 0;
  }

  // Stored in NFC; 4093 when another's source or name has the same skeleton. Only this check reads sources as people
  // do; lookups compare them as stored.
  async createPartner(tx: Transaction, givenSource: string, givenName: string): Promise<{ partner: Partner } & IssuedKey> {
    const [source, name] = [toStored(givenSource), toStored(givenName)];
    const partner = await this.repository.insertPartner(tx, { source, name, sourceSkeleton: skeleton(source), nameSkeleton: skeleton(name) });
    return { partner, ...(await this.issueKey(tx, partner.id)) };
  }

  /** A new API key for partner `partnerId`: only its hash and display prefix are stored. */
  async issueKey(tx: Transaction, partnerId: string): Promise<IssuedKey> {
    const generated = generateKey('partner');
    return { keyId: await this.repository.insertKey(tx, partnerId, generated), apiKey: generated.key };
  }

  /** One page of partners in registration order (at most PAGE_BYTES of them), `q` in source or name. */
  listPartners(page: { contains?: string; afterId?: string; limit: number }): Promise<Page<PartnerItem>> {
    return this.repository.partnerPage(page.contains, page.afterId ?? '0', page.limit);
  }

  /** One page of partner `source`'s keys, newest first (4042 when there is no such partner). */
  async listKeys(source: string, page: { beforeId?: string; limit: number }): Promise<Page<PartnerKeyDetail>> {
    if (source.includes('\u0000')) throw new ApiError(ErrorCatalogue.PARTNER_NOT_FOUND);
    const keys = await this.repository.keyPage(source, page.beforeId, page.limit);
    // A partner is registered with a key: a page finds none only for an unknown partner, or past its
    // oldest key; only then is it worth a second statement to tell which.
    if (keys.items.length === 0 && !(await this.repository.partnerExists(source))) throw new ApiError(ErrorCatalogue.PARTNER_NOT_FOUND);
    return keys;
  }

  /** Idempotent (`revokedNow` false if it already was); on every instance, no filing made with the key commits after. */
  async revokeKey(tx: Transaction, partnerId: string, keyId: string): Promise<{ key: LockedKey; revokedNow: boolean }> {
    const key = await this.repository.lockKeyForRevocation(tx, partnerId, keyId);
    if (!key) throw new ApiError(ErrorCatalogue.API_KEY_NOT_FOUND);
    if (key.revokedAt) return { key, revokedNow: false };
    key.revokedAt = new Date();
    await this.repository.revokeKey(tx, keyId, key.revokedAt);
    return { key, revokedNow: true };
  }

  /** Records that key `keyId` was used (its advisory last_used_at, at most once a minute). */
  touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.lastTouched.get(keyId) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(keyId, now);
    this.repository.touchKey(keyId).catch(() => this.lastTouched.delete(keyId));
  }
}
