import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { SqlPool } from '../database/sql-pool';
import { closedAfterDecision, type MarketStatus } from '../markets/market-state';
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

/** The statement's parameters: $1 market id, $2 `partner` (see submitDisputeSql), $3–$7. */
function submissionValues(input: SubmitDisputeDto, partner: string): unknown[] {
  return [
    String(input.market_id),
    partner,
    input.submitter_id,
    input.submitter_name,
    input.submitter_selection,
    input.reason_text,
    input.submitted_at ?? new Date(),
  ];
}

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

/**
 * Files a dispute in ONE statement (one round trip, planned once per connection). `partner` is
 * a query yielding the submitting partner's row (key_id, partner_id, source), or none; $1 is
 * the market id, $3–$6 the submitter's fields, $7 submitted_at. It locks the market row (when
 * there is a partner), inserts the dispute only when the market is the partner's and
 * `resolved`, and moves the market to `disputed`. The outcome row (none without a partner)
 * says which check failed.
 */
const submitDisputeSql = (partner: string) => `
  WITH partner AS (${partner}
  ), market AS (
    SELECT id, source, slug, status FROM markets WHERE id = $1 AND EXISTS (SELECT 1 FROM partner) FOR UPDATE
  ), filed AS (
    INSERT INTO disputes (market_id, status, submitter_id, submitter_name, submitter_selection, reason_text, submitted_at)
    SELECT market.id, 'open', $3, $4, $5, $6, $7 FROM market JOIN partner ON partner.source = market.source
    WHERE market.status = 'resolved'
    ON CONFLICT (market_id) DO NOTHING
    RETURNING id, market_id
  ), moved AS (
    UPDATE markets SET status = 'disputed', updated_at = now() FROM filed WHERE markets.id = filed.market_id
    RETURNING markets.id
  )
  SELECT partner.key_id, partner.partner_id, partner.source AS partner_source,
         market.source, market.slug, market.status,
         (SELECT id FROM filed) AS dispute_id,
         EXISTS (SELECT 1 FROM disputes d WHERE d.market_id = market.id) AS had_dispute,
         txid_current()::text AS txid
    FROM partner LEFT JOIN market ON true`;

/** For a partner already authenticated: $2 is its source. */
const SUBMIT_DISPUTE_SQL = submitDisputeSql('SELECT NULL::bigint AS key_id, NULL::bigint AS partner_id, $2::text AS source');

interface SubmissionOutcome {
  key_id: string | null;
  partner_id: string | null;
  partner_source: string;
  /** The market as locked, before this statement's own change; null when there is none. */
  source: string | null;
  slug: string | null;
  status: MarketStatus | null;
  dispute_id: string | null;
  had_dispute: boolean;
  txid: string;
}

export interface Decision {
  type: DecisionType;
  reasonText: string;
  decidedBy: string;
}

@Injectable()
export class DisputesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: SqlPool,
    private readonly markets: MarketsService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * submit_dispute, steps 3–6 of contract §2 and the writes, for `partner` (already
   * authenticated). Concurrent submissions for one market queue on the row lock; the one that
   * waited re-reads the row (status `disputed` by then) and inserts nothing, and ON CONFLICT
   * on the unique disputes.market_id is the backstop.
   */
  async submitDispute(partner: AuthenticatedPartner, input: SubmitDisputeDto): Promise<{ dispute_id: number }> {
    const [outcome] = await this.sql.prepared<SubmissionOutcome>(
      'submit_dispute_v2',
      SUBMIT_DISPUTE_SQL,
      submissionValues(input, partner.source),
    );
    return this.settle(outcome);
  }

  /** The dispute filed, or the ApiError of the check that failed. */
  private async settle(outcome: SubmissionOutcome): Promise<{ dispute_id: number }> {
    const { source, slug, status } = outcome;
    if (source === null || slug === null || status === null) throw new ApiError(ErrorCatalogue.MARKET_NOT_FOUND);
    if (outcome.dispute_id === null) {
      // `status` is the row as locked, so current; `had_dispute` is as of the statement's start,
      // so a dispute committed while this one waited for the lock shows in `status` only, or,
      // should the market still read `resolved`, as the ON CONFLICT that inserted nothing.
      const conflicted = source === outcome.partner_source && status === 'resolved';
      assertCanSubmitDispute(outcome.partner_source, {
        source,
        status,
        hasDispute: outcome.had_dispute || status === 'disputed' || status === 'closed' || conflicted,
      });
    }
    await this.markets.written(outcome.txid, { source, slug });
    this.metrics.disputesFiled.inc();
    return { dispute_id: Number(outcome.dispute_id) };
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
