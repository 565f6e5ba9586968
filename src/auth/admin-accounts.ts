import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail';
import type { SignedInAccount } from './accounts.schema';
import { PartnerKeysService } from './partner-keys.service';
import type { AdminRole } from './admin-role';
import { type AdminActor, ReviewersService } from './reviewers.service';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The admin API's writes to accounts and keys, each in one transaction with its audit event. */
@Injectable()
export class AdminAccounts {
  constructor(
    private readonly audit: AuditTrail,
    private readonly reviewers: ReviewersService,
    private readonly partnerKeys: PartnerKeysService,
  ) {}

  createReviewer(actor: AdminActor, name: string, role: AdminRole) {
    return this.audit.record(actor, async (tx) => {
      const { reviewer, apiKey } = await this.reviewers.createReviewer(tx, name, role);
      return {
        result: { id: Number(reviewer.id), name: reviewer.name, role: reviewer.role, api_key: apiKey },
        audit: { action: 'reviewer.created', target: `reviewer:${reviewer.id}`, details: { name: reviewer.name, role, prefix: reviewer.prefix } },
      };
    });
  }

  revokeReviewer(actor: AdminActor, id: string) {
    return this.audit.record(actor, async (tx) => {
      const { reviewer, revokedNow } = await this.reviewers.revokeReviewer(tx, actor, id);
      return {
        result: { id: Number(reviewer.id), revoked_at: iso(reviewer.revokedAt) },
        audit: revokedNow ? { action: 'reviewer.revoked', target: `reviewer:${reviewer.id}`, details: { name: reviewer.name } } : null,
      };
    });
  }

  createPartner(actor: AdminActor, source: string, name: string) {
    return this.audit.record(actor, async (tx) => {
      const { partner, keyId, apiKey } = await this.partnerKeys.createPartner(tx, source, name);
      return {
        result: { source: partner.source, name: partner.name, key_id: Number(keyId), api_key: apiKey },
        audit: { action: 'partner.created', target: `partner:${partner.source}`, details: { name: partner.name, key_id: Number(keyId) } },
      };
    });
  }

  issueKey(actor: AdminActor, source: string) {
    return this.audit.record(actor, async (tx) => {
      const partner = await this.partnerKeys.requirePartner(tx, source);
      const { keyId, apiKey } = await this.partnerKeys.issueKey(tx, partner.id);
      return {
        result: { key_id: Number(keyId), api_key: apiKey },
        audit: { action: 'key.issued', target: `partner:${source}`, details: { key_id: Number(keyId) } },
      };
    });
  }

  revokeKey(actor: AdminActor, source: string, keyId: string) {
    return this.audit.record(actor, async (tx) => {
      const partner = await this.partnerKeys.requirePartner(tx, source);
      const { key, revokedNow } = await this.partnerKeys.revokeKey(tx, partner.id, keyId);
      return {
        result: { key_id: Number(key.id), revoked_at: iso(key.revokedAt) },
        audit: revokedNow ? { action: 'key.revoked', target: `partner:${source}`, details: { key_id: Number(key.id), prefix: key.prefix } } : null,
      };
    });
  }

  /** The caller as the page sees it: the master key is no account, hence no id. */
  accountOf(actor: AdminActor): SignedInAccount {
    return { id: actor.id === null ? null : Number(actor.id), name: actor.name, role: actor.role };
  }
}
