import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { boundedPage, pageOf } from '../database/bounded-page';
import { raw, Sql, sql, type Statement, type Transaction } from '../database/sql';
import { ADMIN_DISPUTE_JSON } from './admin-dispute';
import { Dispute } from './dispute.entity';
import type { AdminDispute } from './disputes.schema';
import type { IdempotencyRecord } from './idempotency-record.entity';
import { type DecisionType, type DisputeStatus, sqlText } from '../markets/market-state';

const ADMIN_DISPUTE = raw(ADMIN_DISPUTE_JSON);

/** The first key of the queue's order (ix_disputes_queue's expression). */
const IS_CLOSED = raw(`d.status = ${sqlText('closed')}`);

/** An answer remembered under an Idempotency-Key. */
export type RememberedFiling = Pick<IdempotencyRecord, 'requestHash' | 'outcome' | 'disputeId'>;

/** A dispute as submit_dispute received it, for a market its transaction has locked. */
export type NewDispute = Pick<Dispute, 'marketId' | 'submitterId' | 'submitterName' | 'submitterSelection' | 'reasonText' | 'submittedAt'>;

/** A place in the review queue, which lists open disputes before closed ones, each oldest first. */
export interface QueuePlace {
  closed: boolean;
  id: string;
}

/** The dispute row as a decision needs it, read under a row lock, with its market's name. */
export interface LockedDispute {
  status: DisputeStatus;
  market_id: string;
  submitter_selection: string;
  source: string;
  slug: string;
}

/** Disputes and idempotency records: the Disputes module's data. */
@Injectable()
export class DisputesRepository {
  constructor(
    private readonly sql: Sql,
    @InjectRepository(Dispute) private readonly disputes: Repository<Dispute>,
  ) {}

  // The filing's statements are hand-written (docs/architecture.md, "Hand-tuned statements"): TypeORM's query builders
  // cost about twice the CPU of the same statement, on the service's busiest write.

  /** The new dispute's id; null when uq_disputes_market_id, the Dispute entity's one-dispute rule, refuses it (4091). `andThen(marketIds)` runs in the same statement only for a dispute filed. */
  async insert(tx: Transaction, dispute: NewDispute, andThen: (marketIds: Statement) => Statement): Promise<string | null> {
    const [inserted] = await this.sql.rows(
      sql<{ id: string }>`WITH filed AS (INSERT INTO disputes (market_id, status, submitter_id, submitter_name, submitter_selection, reason_text, submitted_at)
          VALUES (${dispute.marketId}, ${raw(sqlText('open'))}, ${dispute.submitterId}, ${dispute.submitterName}, ${dispute.submitterSelection},
            ${dispute.reasonText}, ${dispute.submittedAt})
          ON CONFLICT ON CONSTRAINT uq_disputes_market_id DO NOTHING RETURNING id, market_id),
        after AS (${andThen(sql`SELECT market_id FROM filed`)})
        SELECT id FROM filed`,
      tx,
    );
    return inserted?.id ?? null;
  }

  /** Takes (source, key) until `tx` ends once boolean `guard` is true (one round trip): held false while another filing with it is in progress (4096). */
  async holdIdempotencyKey(tx: Transaction, source: string, key: string, guard: Statement): Promise<{ passed: boolean; held: boolean }> {
    const [row] = await this.sql.rows(
      sql<{ passed: boolean; held: boolean }>`SELECT g.passed, g.passed AND pg_try_advisory_xact_lock(${ADVISORY_LOCKS.idempotencyKeyClass}, hashtext(${source} || E'\\n' || ${key})) AS held
        FROM (SELECT ${guard} AS passed) g`,
      tx,
    );
    return row;
  }

  /** The answer remembered under (source, key), if any: read once the key is held. */
  async remembered(tx: Transaction, source: string, key: string): Promise<RememberedFiling | undefined> {
    const [record] = await this.sql.rows(
      sql<RememberedFiling>`SELECT request_hash AS "requestHash", outcome, dispute_id AS "disputeId" FROM idempotency_keys WHERE source = ${source} AND key = ${key}`,
      tx,
    );
    return record;
  }

  /** Its primary key (source, key) is the last word: held as it is, a second record can only come from outside the service. */
  async remember(tx: Transaction, source: string, key: string, filing: RememberedFiling): Promise<void> {
    await this.sql.rows(
      sql`INSERT INTO idempotency_keys (source, key, request_hash, outcome, dispute_id) VALUES (${source}, ${key}, ${filing.requestHash}, ${filing.outcome}, ${filing.disputeId})`,
      tx,
    );
  }

  /** Forgets up to 10,000 idempotency records older than 25 hours (contract §8 keeps them 24); how many. */
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
    const [dispute] = await this.sql.rows(
      sql<LockedDispute>`SELECT d.status, d.market_id, d.submitter_selection, m.source, m.slug
        FROM disputes d JOIN markets m ON m.id = d.market_id WHERE d.id = ${id} FOR UPDATE OF d`,
      tx,
    );
    return dispute;
  }

  async close(tx: Transaction, id: string, decision: { type: DecisionType; finalVerdict: string; reasonText: string; decidedBy: string }): Promise<void> {
    await tx.withRepository(this.disputes).update(
      { id },
      {
        status: 'closed',
        decisionType: decision.type,
        partnerFinalVerdict: decision.finalVerdict,
        decisionReason: decision.reasonText,
        decidedAt: () => 'now()',
        decidedBy: decision.decidedBy,
      },
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
