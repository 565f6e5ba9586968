import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { isUniqueViolation } from '../database/database-errors';
import { closedAfterDecision } from '../markets/market-state';
import { MarketsService } from '../markets/markets.service';
import { assertCanSubmitDispute, assertDecidable, type DecisionType, partnerFinalVerdict } from './dispute-state';
import { Dispute } from './dispute.entity';
import type { SubmitDisputeDto } from './submit-dispute.dto';

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
  ) {}

  /**
   * submit_dispute: the checks of contract §2 run inside one transaction with the market row
   * locked, so concurrent submissions for one market queue up and exactly one succeeds; the
   * unique constraint on disputes.market_id is the backstop.
   */
  async submitDispute(partner: AuthenticatedPartner, input: SubmitDisputeDto): Promise<{ dispute_id: number }> {
    try {
      const disputeId = await this.dataSource.transaction(async (manager) => {
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
        return String(identifiers[0].id);
      });
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
}
