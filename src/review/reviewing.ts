import { Injectable } from '@nestjs/common';
import type { AdminActor } from '../auth/reviewers.service';
import type { AdminDispute } from '../disputes/disputes.schema';
import type { DecisionType } from '../markets/market-state';
import { DisputesService } from '../disputes/disputes.service';
import { MarketWrites } from '../markets/market-writes';
import { MetricsService } from '../observability/metrics.service';

/** Reviewers close disputes: a decision, audited, with its change event. */
@Injectable()
export class Reviewing {
  constructor(
    private readonly disputes: DisputesService,
    private readonly marketWrites: MarketWrites,
    private readonly metrics: MetricsService,
  ) {}

  async recordDecision(actor: AdminActor, disputeId: string, type: DecisionType, reasonText: string): Promise<AdminDispute> {
    const decided = await this.marketWrites.record(actor, 'dispute.decided', async (tx) => {
      await this.disputes.recordDecision(tx, disputeId, { type, reasonText, decidedBy: actor.name });
      const dispute = await this.disputes.getAdminDispute(disputeId, tx);
      return {
        result: dispute,
        market: { id: dispute.market_id, source: dispute.source, slug: dispute.slug },
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
}
