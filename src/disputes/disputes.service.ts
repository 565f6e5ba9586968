import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { boundedPage, pageOf, type PageRow } from '../database/bounded-page';
import { isUniqueViolation } from '../database/database-errors';
import { Sql, statement } from '../database/sql';
import { ChangeLog } from '../changes/change-log';
import { MarketsService } from '../markets/markets.service';
import { MetricsService } from '../observability/metrics.service';
import { ADMIN_DISPUTE_JSON, type AdminDispute } from './admin-dispute';
import { assertDecidable, type DecisionType, type DisputeStatus, partnerFinalVerdict } from './dispute-state';
import type { SubmitDisputeDto } from './submit-dispute.dto';

/** What file_dispute answers: the dispute filed (now, or replayed under its idempotency key), or which check refused it. */
type Filing =
  | { outcome: 'filed'; dispute_id: string; source: string | null; slug: string | null; replayed: boolean }
  | { outcome: keyof typeof REFUSALS; dispute_id: null; source: null; slug: null; replayed: boolean };

const REFUSALS = {
  key_revoked: ErrorCatalogue.API_KEY_INVALID,
  key_in_progress: ErrorCatalogue.IDEMPOTENCY_KEY_IN_PROGRESS,
  key_reused: ErrorCatalogue.IDEMPOTENCY_KEY_REUSED,
  market_not_found: ErrorCatalogue.MARKET_NOT_FOUND,
  other_source: ErrorCatalogue.MARKET_OTHER_SOURCE,
  already_disputed: ErrorCatalogue.MARKET_ALREADY_DISPUTED,
  not_resolved: ErrorCatalogue.MARKET_NOT_RESOLVED,
} as const;

/** A filing's answer, and whether it is one remembered under its idempotency key. */
export interface FilingAnswer {
  answer: { dispute_id: number } | ApiError;
  replayed: boolean;
}

const FILE_DISPUTE = statement<Filing>('SELECT * FROM file_dispute($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)');
// Idempotency keys are remembered at least 24 hours (contract §8): older ones go, a batch at a time.
const FORGET_IDEMPOTENCY_KEYS = statement<{ forgotten: number }>(`
  WITH forgotten AS (
    DELETE FROM idempotency_keys WHERE ctid IN (
      SELECT ctid FROM idempotency_keys WHERE created_at < now() - interval '25 hours' LIMIT 10000)
    RETURNING 1)
  SELECT count(*)::int AS forgotten FROM forgotten`);
const FORGET_INTERVAL_MS = 60 * 60_000;
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
export class DisputesService implements OnApplicationBootstrap, OnApplicationShutdown {
  private forgetting: NodeJS.Timeout | undefined;

  constructor(
    private readonly sql: Sql,
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
      const [{ forgotten }] = await this.sql.rows(FORGET_IDEMPOTENCY_KEYS);
      total += forgotten;
      if (forgotten === 0) return total;
    }
  }

  /**
   * submit_dispute, steps 3–6 of contract §2 and the writes, for `partner` (authenticated), under
   * its idempotency key if it gave one (contract §8): one call of file_dispute
   * (file-dispute.function.ts), which answers the outcome, the one remembered under the key
   * included. The unique constraint on disputes.market_id is the backstop (4091). Answered once
   * this instance has the change (ChangeLog.written).
   */
  async submitDispute(partner: AuthenticatedPartner, input: SubmitDisputeDto, idempotency?: { key: string; requestHash: string }): Promise<FilingAnswer> {
    const values = [
      String(input.market_id),
      partner.source,
      input.submitter_id,
      input.submitter_name,
      input.submitter_selection,
      input.reason_text,
      input.submitted_at ?? new Date(),
      partner.keyId,
      idempotency?.key ?? null,
      idempotency?.requestHash ?? null,
    ];
    let filing: Filing;
    try {
      [filing] = await this.sql.rows(FILE_DISPUTE, values);
    } catch (error) {
      if (isUniqueViolation(error, 'uq_disputes_market_id')) throw new ApiError(ErrorCatalogue.MARKET_ALREADY_DISPUTED);
      throw error;
    }
    if (filing.outcome !== 'filed') return { answer: new ApiError(REFUSALS[filing.outcome]), replayed: filing.replayed };
    if (!filing.replayed) {
      await this.changes.written(filing.source!, filing.slug!);
      this.metrics.disputesFiled.inc();
    }
    return { answer: { dispute_id: Number(filing.dispute_id) }, replayed: filing.replayed };
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
    const rows = await this.sql.readRows(DISPUTE_QUEUE, [from, to, after.closed, after.id, page.limit + 1]);
    const { items, hasMore } = pageOf(rows, page.limit);
    return { disputes: items, hasMore };
  }

  /** How many disputes are in each status (the back office's queue header). */
  async countByStatus(): Promise<Record<DisputeStatus, number>> {
    const counts: Record<DisputeStatus, number> = { open: 0, closed: 0 };
    for (const row of await this.sql.readRows(COUNTS_BY_STATUS)) counts[row.status] = row.count;
    return counts;
  }
}
