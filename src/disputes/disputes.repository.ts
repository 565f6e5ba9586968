import { Injectable } from '@nestjs/common';
import { boundedPage, pageOf } from '../database/bounded-page';
import { raw, Sql, sql, type Transaction } from '../database/sql';
import { APPENDED_EVENT_ID } from '../changes/change-log.functions';
import { ADMIN_DISPUTE_JSON } from './admin-dispute';
import type { AdminDispute } from './disputes.schema';
import { type DecisionType, type DisputeStatus, sqlText } from '../markets/market-state';

const ADMIN_DISPUTE = raw(ADMIN_DISPUTE_JSON);

/** The first key of the queue's order (ix_disputes_queue's expression). */
const IS_CLOSED = raw(`d.status = ${sqlText('closed')}`);

/** A filing as submit_dispute received it, from an authenticated partner's key, with its idempotency key if any. */
export interface FilingRequest {
  marketId: string;
  source: string;
  keyId: string;
  submitterId: string;
  submitterName: string;
  submitterSelection: string;
  reasonText: string;
  submittedAt: Date;
  idempotency?: { key: string; requestHash: string };
}

/** What file_dispute answers: the dispute filed (now, or replayed under its idempotency key), or which check refused it. */
export type Filing =
  | { outcome: 'filed'; replayed: false; dispute_id: string; source: string; slug: string; event_id: string }
  | { outcome: 'filed'; replayed: true; dispute_id: string; source: null; slug: null; event_id: null }
  | { outcome: FilingRefusal; replayed: boolean; dispute_id: null; source: null; slug: null; event_id: null };

export type FilingRefusal = 'key_revoked' | 'key_in_progress' | 'key_reused' | 'market_not_found' | 'other_source' | 'already_disputed' | 'not_resolved';

/** A place in the review queue, which lists open disputes before closed ones, each oldest first. */
export interface QueuePlace {
  closed: boolean;
  id: string;
}

/** The dispute row as a decision needs it, read under a row lock. */
export interface LockedDispute {
  status: DisputeStatus;
  market_id: string;
  submitter_selection: string;
}

/** Disputes and idempotency keys: the Disputes module's SQL. */
@Injectable()
export class DisputesRepository {
  constructor(private readonly sql: Sql) {}

  /** One call of file_dispute (file-dispute.function.ts), which answers every outcome of the rule. */
  async file(filing: FilingRequest): Promise<Filing> {
    const [answer] = await this.sql.rows(
      sql<Filing>`SELECT f.*, CASE WHEN f.outcome = 'filed' AND NOT f.replayed THEN ${raw(APPENDED_EVENT_ID)} END AS event_id
        FROM file_dispute(${filing.marketId}, ${filing.source}, ${filing.submitterId}, ${filing.submitterName},
        ${filing.submitterSelection}, ${filing.reasonText}, ${filing.submittedAt}, ${filing.keyId},
        ${filing.idempotency?.key ?? null}, ${filing.idempotency?.requestHash ?? null}) f`,
    );
    return answer;
  }

  /** Forgets up to 10,000 idempotency keys older than 25 hours (contract §8 keeps them 24); how many. */
  async forgetIdempotencyKeys(): Promise<number> {
    const [{ forgotten }] = await this.sql.rows(sql<{ forgotten: number }>`
      WITH forgotten AS (
        DELETE FROM idempotency_keys WHERE ctid IN (
          SELECT ctid FROM idempotency_keys WHERE created_at < now() - interval '25 hours' LIMIT 10000)
        RETURNING 1)
      SELECT count(*)::int AS forgotten FROM forgotten`);
    return forgotten;
  }

  /** Dispute `id`, row-locked until `tx` ends. */
  async lock(tx: Transaction, id: string): Promise<LockedDispute | undefined> {
    const [dispute] = await this.sql.rows(sql<LockedDispute>`SELECT status, market_id, submitter_selection FROM disputes WHERE id = ${id} FOR UPDATE`, tx);
    return dispute;
  }

  async close(tx: Transaction, id: string, decision: { type: DecisionType; finalVerdict: string; reasonText: string; decidedBy: string }): Promise<void> {
    await this.sql.rows(
      sql`UPDATE disputes SET status = ${raw(sqlText('closed'))}, decision_type = ${decision.type}, partner_final_verdict = ${decision.finalVerdict},
        decision_reason = ${decision.reasonText}, decided_at = now(), decided_by = ${decision.decidedBy}
      WHERE id = ${id}`,
      tx,
    );
  }

  async adminDispute(id: string, tx?: Transaction): Promise<AdminDispute | undefined> {
    const [row] = await this.sql.rows(
      sql<{ item: AdminDispute }>`SELECT ${ADMIN_DISPUTE} AS item FROM disputes d JOIN markets m ON m.id = d.market_id WHERE d.id = ${id}`,
      tx,
    );
    return row?.item;
  }

  /** Keyset (closed, id) of ix_disputes_queue; `from`..`to` is the range of `closed` listed. Disputes only go from open to closed, so a page never skips one. */
  async queuePage(from: boolean, to: boolean, after: QueuePlace, limit: number): Promise<{ disputes: AdminDispute[]; hasMore: boolean }> {
    const rows = await this.sql.readRows(
      boundedPage<AdminDispute>(
        sql`SELECT ${IS_CLOSED} AS closed, d.id, ${ADMIN_DISPUTE} AS item
        FROM disputes d JOIN markets m ON m.id = d.market_id
        WHERE (${IS_CLOSED}) BETWEEN ${from} AND ${to} AND (${IS_CLOSED}, d.id) > (${after.closed}, ${after.id})
        ORDER BY ${IS_CLOSED}, d.id LIMIT ${limit + 1}`,
        'closed, id',
      ),
    );
    const { items, hasMore } = pageOf(rows, limit);
    return { disputes: items, hasMore };
  }

  async countsByStatus(): Promise<{ status: DisputeStatus; count: number }[]> {
    return this.sql.readRows(sql<{ status: DisputeStatus; count: number }>`SELECT status, count(*)::int AS count FROM disputes GROUP BY status`);
  }
}
