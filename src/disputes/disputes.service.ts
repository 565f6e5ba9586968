import { Injectable } from '@nestjs/common';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { Transaction } from '../database/sql';
import { MarketsService } from '../markets/markets.service';
import type { AdminDispute } from './disputes.schema';
import type { DecisionType, DisputeStatus } from '../markets/market-state';
import { assertDecidable, partnerFinalVerdict } from './dispute-state';
import { DisputesRepository, type QueuePlace } from './disputes.repository';

export type { QueuePlace } from './disputes.repository';

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

/** Disputes once filed (DisputeFiling files them): their decision, and the reviewers' reads. */
@Injectable()
export class DisputesService {
  constructor(
    private readonly repository: DisputesRepository,
    private readonly markets: MarketsService,
  ) {}

  /** The dispute row is locked before it is checked, so exactly one of concurrent decisions wins (the others: 4092). */
  async recordDecision(tx: Transaction, disputeId: string, decision: Decision): Promise<void> {
    const dispute = await this.repository.lock(tx, disputeId);
    if (!dispute) throw new ApiError(ErrorCatalogue.DISPUTE_NOT_FOUND);
    assertDecidable(dispute.status, dispute);
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
