import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { boundedPage, pageOf, type PageRow } from '../database/bounded-page';
import { isUniqueViolation } from '../database/database-errors';
import { Sql, statement } from '../database/sql';
import { MarketsService } from '../markets/markets.service';
import { MetricsService } from '../observability/metrics.service';
import { ADMIN_DISPUTE_JSON, type AdminDispute } from './admin-dispute';
import { assertDecidable, type DecisionType, type DisputeStatus, partnerFinalVerdict } from './dispute-state';
import type { SubmitDisputeDto } from './submit-dispute.dto';

/** What file_dispute answers: the dispute filed, or which check refused it. */
type Filing =
  | { outcome: 'filed'; dispute_id: string; source: string; slug: string; txid: string }
  | { outcome: keyof typeof REFUSALS; dispute_id: null; source: null; slug: null; txid: null };

const REFUSALS = {
  key_revoked: ErrorCatalogue.API_KEY_INVALID,
  market_not_found: ErrorCatalogue.MARKET_NOT_FOUND,
  other_source: ErrorCatalogue.MARKET_OTHER_SOURCE,
  already_disputed: ErrorCatalogue.MARKET_ALREADY_DISPUTED,
  not_resolved: ErrorCatalogue.MARKET_NOT_RESOLVED,
} as const;

const FILE_DISPUTE = statement<Filing>('SELECT * FROM file_dispute($1, $2, $3, $4, $5, $6, $7, $8)');
const LOCK_DISPUTE = statement<{ status: DisputeStatus; market_id: string; submitter_selection: string }>(
  'SELECT status, market_id, submitter_selection FROM disputes WHERE id = $1 FOR UPDATE',
);
const CLOSE_DISPUTE = statement(`
  UPDATE disputes SET status = 'closed', decision_type = $2, partner_final_verdict = $3, decision_reason = $4,
    decided_at = now(), decided_by = $5
  WHERE id = $1`);
const ADMIN_DISPUTE_BY_ID = statement<{ item: AdminDispute }>(`SELECT ${ADMIN_DISPUTE_JSON} AS item
  FROM disputes d JOIN markets m ON m.id = d.market_id WHERE d.id = $1`);
// Open disputes before closed ones, each oldest first: a place in the queue is (closed, id),
// the keyset of ix_disputes_queue. $1..$2 is the range of `closed` listed (both, or one status);
// ($3, $4) is the place the page starts after. Disputes only ever go from open to closed, so a
// page never skips one; one decided between pages shows again among the closed.
const DISPUTE_QUEUE = statement<PageRow<AdminDispute>>(
  boundedPage(
    `SELECT d.status = 'closed' AS closed, d.id, ${ADMIN_DISPUTE_JSON} AS item
    FROM disputes d JOIN markets m ON m.id = d.market_id
    WHERE (d.status = 'closed') BETWEEN $1 AND $2 AND (d.status = 'closed', d.id) > ($3, $4)
    ORDER BY d.status = 'closed', d.id LIMIT $5`,
    'closed, id',
  ),
);
const COUNTS_BY_STATUS = statement<{ status: DisputeStatus; count: number }>(
  'SELECT status, count(*)::int AS count FROM disputes GROUP BY status',
);

/** A place in the review queue, which lists open disputes before closed ones, each oldest first. */
export interface QueuePlace {
  closed: boolean;
  id: string;
}

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
export class DisputesService {
  constructor(
    private readonly sql: Sql,
    private readonly markets: MarketsService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * submit_dispute, steps 3–6 of contract §2 and the writes, for `partner` (authenticated): one
   * call of the database function file_dispute (migrations FileDisputeFunction,
   * FilingHoldsItsKey and FairCredentialHolds), which holds the partner's key (revoked
   * meanwhile: 4011; a revocation waits for the filing), locks the market, applies the rule in
   * the contract's order, inserts the dispute and moves the market to `disputed`, in one
   * transaction, and answers the outcome. Concurrent submissions for one market queue on its lock, and each one after the first finds the dispute; the unique
   * constraint on disputes.market_id is the backstop (4091). Answered once every instance has
   * been sent the change (PublicRecords.written).
   */
  async submitDispute(partner: AuthenticatedPartner, input: SubmitDisputeDto): Promise<{ dispute_id: number }> {
    const values = [
      String(input.market_id),
      partner.source,
      input.submitter_id,
      input.submitter_name,
      input.submitter_selection,
      input.reason_text,
      input.submitted_at ?? new Date(),
      partner.keyId,
    ];
    let filing: Filing;
    try {
      [filing] = await this.sql.rows(FILE_DISPUTE, values);
    } catch (error) {
      if (isUniqueViolation(error, 'uq_disputes_market_id')) throw new ApiError(ErrorCatalogue.MARKET_ALREADY_DISPUTED);
      throw error;
    }
    if (filing.outcome !== 'filed') throw new ApiError(REFUSALS[filing.outcome]);
    await this.markets.written(filing.txid, filing);
    this.metrics.disputesFiled.inc();
    return { dispute_id: Number(filing.dispute_id) };
  }

  /**
   * Closes an open dispute with the review's decision, and its market with it (dispute
   * open → closed, market disputed → closed), in `manager`'s transaction. Exactly one of
   * concurrent decisions wins: the dispute row is locked before it is checked (4092).
   */
  async recordDecision(manager: EntityManager, disputeId: string, decision: Decision): Promise<void> {
    const [dispute] = await this.sql.rows(LOCK_DISPUTE, [disputeId], manager);
    if (!dispute) throw new ApiError(ErrorCatalogue.DISPUTE_NOT_FOUND);
    assertDecidable(dispute.status);
    const market = await this.markets.lockMarket(manager, dispute.market_id);
    const finalVerdict = partnerFinalVerdict(decision.type, dispute.submitter_selection, market.verdict!);
    await this.sql.rows(CLOSE_DISPUTE, [disputeId, decision.type, finalVerdict, decision.reasonText, decision.decidedBy], manager);
    await this.markets.closeAfterDecision(manager, market);
  }

  async getAdminDispute(id: string, manager?: EntityManager): Promise<AdminDispute> {
    const [row] = await this.sql.rows(ADMIN_DISPUTE_BY_ID, [id], manager);
    if (!row) throw new ApiError(ErrorCatalogue.DISPUTE_NOT_FOUND);
    return row.item;
  }

  /** One page of the review queue (at most PAGE_BYTES of it), plus whether more follow. */
  async listAdminDisputes(page: DisputeQueuePage): Promise<{ disputes: AdminDispute[]; hasMore: boolean }> {
    const from = page.status === 'closed';
    const to = page.status !== 'open';
    const after = page.after ?? { closed: from, id: '0' };
    const rows = await this.sql.rows(DISPUTE_QUEUE, [from, to, after.closed, after.id, page.limit + 1]);
    const { items, hasMore } = pageOf(rows, page.limit);
    return { disputes: items, hasMore };
  }

  /** How many disputes are in each status (the back office's queue header). */
  async countByStatus(): Promise<Record<DisputeStatus, number>> {
    const counts: Record<DisputeStatus, number> = { open: 0, closed: 0 };
    for (const row of await this.sql.rows(COUNTS_BY_STATUS)) counts[row.status] = row.count;
    return counts;
  }
}
