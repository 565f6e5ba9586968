import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { isUniqueViolation } from '../database/database-errors';
import { closedAfterDecision } from '../markets/market-state';
import { MarketsService } from '../markets/markets.service';
import { MetricsService } from '../observability/metrics.service';
import { ADMIN_DISPUTE_JSON, type AdminDispute } from './admin-dispute';
import {
  assertCanSubmitDispute,
  assertDecidable,
  type DecisionType,
  type DisputeStatus,
  partnerFinalVerdict,
} from './dispute-state';
import { Dispute } from './dispute.entity';
import type { SubmitDisputeDto } from './submit-dispute.dto';

export interface DisputeQueuePage {
  status?: DisputeStatus;
  /** Only disputes with a larger id (the keyset cursor). */
  afterId?: string;
  limit: number;
}

const ADMIN_DISPUTE_BY_ID_SQL = `SELECT ${ADMIN_DISPUTE_JSON} AS item
  FROM disputes d JOIN markets m ON m.id = d.market_id WHERE d.id = $1`;

// Oldest first, by id: keyset pagination on the primary key stays stable while disputes arrive.
const DISPUTE_QUEUE_SQL = `SELECT d.id, ${ADMIN_DISPUTE_JSON} AS item
  FROM disputes d JOIN markets m ON m.id = d.market_id
  WHERE ($1::text IS NULL OR d.status = $1) AND d.id > $2
  ORDER BY d.id LIMIT $3`;

export interface Decision {
  type: DecisionType;
  reasonText: string;
  decidedBy: string;
}

@Injectable()
export class DisputesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly markets: MarketsService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * submit_dispute: the checks of contract §2 run inside one transaction with the market row
   * locked, so concurrent submissions for one market queue up and exactly one succeeds; the
   * unique constraint on disputes.market_id is the backstop.
   */
  async submitDispute(partner: AuthenticatedPartner, input: SubmitDisputeDto): Promise<{ dispute_id: number }> {
    try {
      const { disputeId, changed } = await this.dataSource.transaction(async (manager) => {
        const marketId = String(input.market_id);
        const market = await this.markets.lockMarket(manager, marketId);
        const hasDispute = await manager.exists(Dispute, { where: { marketId } });
        assertCanSubmitDispute(partner.source, { source: market.source, status: market.status, hasDispute });
        const { identifiers } = await manager.insert(Dispute, {
          marketId,
          status: 'open',
          submitterId: input.submitter_id,
          submitterName: input.submitter_name,
          submitterSelection: input.submitter_selection,
          reasonText: input.reason_text,
          submittedAt: input.submitted_at ?? new Date(),
        });
        await this.markets.setStatus(manager, marketId, 'disputed');
        return { disputeId: String(identifiers[0].id), changed: await this.markets.changing(manager, market) };
      });
      await changed();
      this.metrics.disputesFiled.inc();
      return { dispute_id: Number(disputeId) };
    } catch (error) {
      if (isUniqueViolation(error, 'uq_disputes_market_id')) throw new ApiError(ErrorCatalogue.MARKET_ALREADY_DISPUTED);
      throw error;
    }
  }

  /**
   * Closes an open dispute with the review's decision, and its market with it
   * (dispute open → closed, market disputed → closed). Exactly one of concurrent decisions
   * wins: the dispute row is locked before it is checked.
   */
  async recordDecision(manager: EntityManager, disputeId: string, decision: Decision): Promise<void> {
    const dispute = await manager
      .createQueryBuilder(Dispute, 'd')
      .setLock('pessimistic_write')
      .where('d.id = :disputeId', { disputeId })
      .getOne();
    if (!dispute) throw new ApiError(ErrorCatalogue.DISPUTE_NOT_FOUND);
    assertDecidable(dispute.status);
    const market = await this.markets.lockMarket(manager, dispute.marketId);
    await manager.update(Dispute, disputeId, {
      status: 'closed',
      decisionType: decision.type,
      partnerFinalVerdict: partnerFinalVerdict(decision.type, dispute.submitterSelection, market.verdict!),
      decisionReason: decision.reasonText,
      decidedAt: new Date(),
      decidedBy: decision.decidedBy,
    });
    await this.markets.setStatus(manager, market.id, closedAfterDecision(market.status));
  }

  async getAdminDispute(manager: EntityManager, id: string): Promise<AdminDispute> {
    const rows: { item: AdminDispute }[] = await manager.query(ADMIN_DISPUTE_BY_ID_SQL, [id]);
    if (rows.length === 0) throw new ApiError(ErrorCatalogue.DISPUTE_NOT_FOUND);
    return rows[0].item;
  }

  /** One page of the review queue, plus whether more follow. */
  async listAdminDisputes(page: DisputeQueuePage): Promise<{ disputes: AdminDispute[]; hasMore: boolean }> {
    const rows: { item: AdminDispute }[] = await this.dataSource.query(DISPUTE_QUEUE_SQL, [
      page.status ?? null,
      page.afterId ?? '0',
      page.limit + 1,
    ]);
    return { disputes: rows.slice(0, page.limit).map((row) => row.item), hasMore: rows.length > page.limit };
  }
}
