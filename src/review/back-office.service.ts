import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PartnerKeysService } from '../auth/partner-keys.service';
import type { ChangeType } from '../changes/change-event';
import { ChangeLog } from '../changes/change-log';
import type { AdminRole } from '../auth/reviewer.entity';
import { type AdminActor, ReviewersService } from '../auth/reviewers.service';
import { parseRfc3339 } from '../common/rfc3339';
import type { AdminDispute } from '../disputes/admin-dispute';
import type { DecisionType } from '../disputes/dispute-state';
import { DisputesService } from '../disputes/disputes.service';
import type { MarketItem } from '../markets/market-item';
import { MarketsService } from '../markets/markets.service';
import { MetricsService } from '../observability/metrics.service';
import type { AccountView } from './account-view';
import { AuditService, type AuditedWrite } from './audit.service';
import type { ResolveMarketDto } from './review.dto';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * The back office's writes. Each runs in one transaction with its audit event, through the
 * Auth, Markets and Disputes services (never their tables).
 */
@Injectable()
export class BackOfficeService {
  constructor(
    private readonly audit: AuditService,
    private readonly reviewers: ReviewersService,
    private readonly partnerKeys: PartnerKeysService,
    private readonly markets: MarketsService,
    private readonly disputes: DisputesService,
    private readonly metrics: MetricsService,
    private readonly changes: ChangeLog,
  ) {}

  createReviewer(actor: AdminActor, name: string, role: AdminRole) {
    return this.audit.record(actor, async (manager) => {
      const { reviewer, apiKey } = await this.reviewers.createReviewer(manager, name, role);
      return {
        result: { id: Number(reviewer.id), name: reviewer.name, role: reviewer.role, api_key: apiKey },
        audit: { action: 'reviewer.created', target: `reviewer:${reviewer.id}`, details: { name: reviewer.name, role, prefix: reviewer.prefix } },
      };
    });
  }

  revokeReviewer(actor: AdminActor, id: string) {
    return this.audit.record(actor, async (manager) => {
      const { reviewer, revokedNow } = await this.reviewers.revokeReviewer(manager, actor, id);
      return {
        result: { id: Number(reviewer.id), revoked_at: iso(reviewer.revokedAt) },
        audit: revokedNow ? { action: 'reviewer.revoked', target: `reviewer:${reviewer.id}`, details: { name: reviewer.name } } : null,
      };
    });
  }

  createPartner(actor: AdminActor, source: string, name: string) {
    return this.audit.record(actor, async (manager) => {
      const { partner, keyId, apiKey } = await this.partnerKeys.createPartner(manager, source, name);
      return {
        result: { source: partner.source, name: partner.name, key_id: Number(keyId), api_key: apiKey },
        audit: { action: 'partner.created', target: `partner:${partner.source}`, details: { name: partner.name, key_id: Number(keyId) } },
      };
    });
  }

  issueKey(actor: AdminActor, source: string) {
    return this.audit.record(actor, async (manager) => {
      const partner = await this.partnerKeys.requirePartner(manager, source);
      const { keyId, apiKey } = await this.partnerKeys.issueKey(manager, partner.id);
      return {
        result: { key_id: Number(keyId), api_key: apiKey },
        audit: { action: 'key.issued', target: `partner:${source}`, details: { key_id: Number(keyId) } },
      };
    });
  }

  revokeKey(actor: AdminActor, source: string, keyId: string) {
    return this.audit.record(actor, async (manager) => {
      const partner = await this.partnerKeys.requirePartner(manager, source);
      const { key, revokedNow } = await this.partnerKeys.revokeKey(manager, partner.id, keyId);
      return {
        result: { key_id: Number(key.id), revoked_at: iso(key.revokedAt) },
        audit: revokedNow ? { action: 'key.revoked', target: `partner:${source}`, details: { key_id: Number(key.id), prefix: key.prefix } } : null,
      };
    });
  }

  createMarket(actor: AdminActor, source: string, slug: string): Promise<MarketItem> {
    return this.recordMarketChange(actor, 'market.created', async (manager) => {
      await this.partnerKeys.requirePartner(manager, source);
      const id = await this.markets.createMarket(manager, source, slug);
      const market = await this.markets.getMarketItem(manager, id);
      return { result: market, audit: { action: 'market.created', target: `market:${id}`, details: { source, slug: market.slug } } };
    });
  }

  resolveMarket(actor: AdminActor, id: string, body: ResolveMarketDto): Promise<MarketItem> {
    return this.recordMarketChange(actor, 'market.resolved', async (manager) => {
      await this.markets.resolveMarket(manager, id, {
        verdict: body.verdict,
        confidence: body.confidence,
        reasoning: body.reasoning,
        proofs: body.proofs,
        resolvedAt: parseRfc3339(body.resolved_at) ?? new Date(),
      });
      return {
        result: await this.markets.getMarketItem(manager, id),
        audit: {
          action: 'market.resolved',
          target: `market:${id}`,
          details: { verdict: body.verdict, confidence: body.confidence, proofs: body.proofs.length },
        },
      };
    });
  }

  async recordDecision(actor: AdminActor, disputeId: string, type: DecisionType, reasonText: string): Promise<AdminDispute> {
    const decided = await this.recordMarketChange(actor, 'dispute.decided', async (manager) => {
      await this.disputes.recordDecision(manager, disputeId, { type, reasonText, decidedBy: actor.name });
      const dispute = await this.disputes.getAdminDispute(disputeId, manager);
      return {
        result: dispute,
        audit: {
          action: 'dispute.decided',
          target: `dispute:${disputeId}`,
          details: { type, market_id: dispute.market_id, partner_final_verdict: dispute.decision?.partner_final_verdict },
        },
      };
    });
    this.metrics.decisionsRecorded.inc({ type });
    return decided;
  }

  /**
   * An audited write that changes one market's public record (`result` names it), with its
   * event in the change log, in one transaction; answered once this instance has the change
   * (ChangeLog.written).
   */
  private async recordMarketChange<T extends MarketItem | AdminDispute>(
    actor: AdminActor,
    type: ChangeType,
    write: (manager: EntityManager) => Promise<AuditedWrite<T>>,
  ): Promise<T> {
    const result = await this.audit.record(actor, async (manager) => {
      const outcome = await write(manager);
      await this.changes.append(manager, type, String('market_id' in outcome.result ? outcome.result.market_id : outcome.result.id));
      return outcome;
    });
    await this.changes.written(result.source, result.slug);
    return result;
  }

  getDispute(id: string): Promise<AdminDispute> {
    return this.disputes.getAdminDispute(id);
  }

  countDisputes() {
    return this.disputes.countByStatus();
  }

  /** The caller as the page sees it: the master key is no account, hence no id. */
  accountOf(actor: AdminActor): AccountView {
    return { id: actor.id === null ? null : Number(actor.id), name: actor.name, role: actor.role };
  }
}
