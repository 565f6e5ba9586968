import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { Transaction } from '../database/sql';
import { ChangeLog } from '../changes/change-log';
import { MarketsService } from '../markets/markets.service';
import { MetricsService } from '../observability/metrics.service';
import type { AdminDispute } from './disputes.schema';
import type { DecisionType, DisputeStatus } from '../markets/market-state';
import { assertDecidable, partnerFinalVerdict } from './dispute-state';
import { DisputesRepository, type FilingRefusal, type QueuePlace } from './disputes.repository';
import type { SubmitDisputeDto } from './submit-dispute.dto';

export type { QueuePlace } from './disputes.repository';

/** The code of each refusal file_dispute answers (it decides; this only names the answer). */
const REFUSALS: Record<FilingRefusal, (typeof ErrorCatalogue)[keyof typeof ErrorCatalogue]> = {
  key_revoked: ErrorCatalogue.API_KEY_INVALID,
  key_in_progress: ErrorCatalogue.IDEMPOTENCY_KEY_IN_PROGRESS,
  key_reused: ErrorCatalogue.IDEMPOTENCY_KEY_REUSED,
  market_not_found: ErrorCatalogue.MARKET_NOT_FOUND,
  other_source: ErrorCatalogue.MARKET_OTHER_SOURCE,
  already_disputed: ErrorCatalogue.MARKET_ALREADY_DISPUTED,
  not_resolved: ErrorCatalogue.MARKET_NOT_RESOLVED,
};

/** A filing's answer, and whether it is one remembered under its idempotency key. */
export interface FilingAnswer {
  answer: { dispute_id: number } | ApiError;
  replayed: boolean;
}

const FORGET_INTERVAL_MS = 60 * 60_000;

export interface DisputeQueuePage {
  status?: DisputeStatus;
  /** Only disputes after this place (the keyset cursor). */
  after?: QueuePlace;
  limit: number;
}

export interface Decision {
  type: DecisionType;
  reasonText: string;
  decidedBy: string;
}

@Injectable()
export class DisputesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private forgetting: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: DisputesRepository,
    private readonly markets: MarketsService,
    private readonly metrics: MetricsService,
    private readonly changes: ChangeLog,
  ) {}

  onApplicationBootstrap(): void {
    this.forgetting = setInterval(() => void this.forgetIdempotencyKeys().catch(() => undefined), FORGET_INTERVAL_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.forgetting);
  }

  /** Forgets idempotency keys older than their 24 hours; how many. */
  async forgetIdempotencyKeys(): Promise<number> {
    let total = 0;
    for (;;) {
      const forgotten = await this.repository.forgetIdempotencyKeys();
      total += forgotten;
      if (forgotten === 0) return total;
    }
  }

  /** submit_dispute (contract §2 steps 3–6; idempotency §8): file_dispute decides; answered once this instance has the change (ChangeLog.written). */
  async submitDispute(partner: AuthenticatedPartner, input: SubmitDisputeDto, idempotency?: { key: string; requestHash: string }): Promise<FilingAnswer> {
    const filing = await this.repository.file({
      marketId: String(input.market_id),
      source: partner.source,
      keyId: partner.keyId,
      submitterId: input.submitter_id,
      submitterName: input.submitter_name,
      submitterSelection: input.submitter_selection,
      reasonText: input.reason_text,
      submittedAt: input.submitted_at ?? new Date(),
      idempotency,
    });
    if (filing.outcome !== 'filed') return { answer: new ApiError(REFUSALS[filing.outcome]), replayed: filing.replayed };
    if (!filing.replayed) {
      await this.changes.written(filing.source, filing.slug, filing.event_id);
      this.metrics.disputesFiled.inc();
    }
    return { answer: { dispute_id: Number(filing.dispute_id) }, replayed: filing.replayed };
  }

  /** The dispute row is locked before it is checked, so exactly one of concurrent decisions wins (the others: 4092). */
  async recordDecision(tx: Transaction, disputeId: string, decision: Decision): Promise<void> {
    const dispute = await this.repository.lock(tx, disputeId);
    if (!dispute) throw new ApiError(ErrorCatalogue.DISPUTE_NOT_FOUND);
    assertDecidable(dispute.status);
    const market = await this.markets.lockMarket(tx, dispute.market_id);
    const finalVerdict = partnerFinalVerdict(decision.type, dispute.submitter_selection, market.verdict!);
    await this.repository.close(tx, disputeId, { ...decision, finalVerdict });
    await this.markets.closeAfterDecision(tx, market);
  }

  async getAdminDispute(id: string, tx?: Transaction): Promise<AdminDispute> {
    const dispute = await this.repository.adminDispute(id, tx);
    if (!dispute) throw new ApiError(ErrorCatalogue.DISPUTE_NOT_FOUND);
    return dispute;
  }

  /** One page of the review queue (at most PAGE_BYTES of it), plus whether more follow. */
  listAdminDisputes(page: DisputeQueuePage): Promise<{ disputes: AdminDispute[]; hasMore: boolean }> {
    const from = page.status === 'closed';
    const to = page.status !== 'open';
    return this.repository.queuePage(from, to, page.after ?? { closed: from, id: '0' }, page.limit);
  }

  /** How many disputes are in each status (the back office's queue header). */
  async countByStatus(): Promise<Record<DisputeStatus, number>> {
    const counts: Record<DisputeStatus, number> = { open: 0, closed: 0 };
    for (const row of await this.repository.countsByStatus()) counts[row.status] = row.count;
    return counts;
  }
}
