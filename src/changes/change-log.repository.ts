import { Injectable } from '@nestjs/common';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { raw, Sql, sql, type Transaction } from '../database/sql';
import { rfc3339 } from '../database/sql-fragments';
import type { ChangeEvent, ChangeType, PolledChanges } from './change-event';
import { APPENDED_EVENT_ID } from './change-log.functions';

export interface FeedPage<Market> {
  deleted_through: string;
  last_sequence: string;
  changes: ChangeEvent<Market>[];
}

/** The change log's SQL (the functions it calls: change-log.functions.ts). */
@Injectable()
export class ChangeLogRepository {
  constructor(private readonly sql: Sql) {}

  /** With a `reader`, also notes it has applied every event up to `applied` (null: nothing cached, so up to the head). */
  async poll(reader: string | null, applied: string | null, after: string, limit: number): Promise<PolledChanges> {
    if (reader === null) {
      const [{ poll }] = await this.sql.rows(sql<{ poll: PolledChanges }>`SELECT change_log_poll(${after}, ${limit}) AS poll`);
      return poll;
    }
    const [{ poll }] = await this.sql.rows(sql<{ poll: PolledChanges }>`
      WITH noted AS (
        INSERT INTO change_log_readers (instance, cursor, polled_at)
        VALUES (${reader}, COALESCE(${applied}::bigint, (SELECT last_sequence FROM change_log_head)), now())
        ON CONFLICT (instance) DO UPDATE SET cursor = EXCLUDED.cursor, polled_at = EXCLUDED.polled_at
      )
      SELECT change_log_poll(${after}, ${limit}) AS poll`);
    return poll;
  }

  /** `reader` has applied every event up to `cursor` (said at once, rather than at its next poll). */
  async noteRead(reader: string, cursor: string): Promise<void> {
    await this.sql.rows(sql`UPDATE change_log_readers SET cursor = greatest(cursor, ${cursor}::bigint) WHERE instance = ${reader}`);
  }

  /** The least cursor of the readers other than `reader` that polled within `liveMs`; null if none did. */
  async slowestOtherReader(reader: string, liveMs: number): Promise<string | null> {
    const [{ cursor }] = await this.sql.rows(sql<{ cursor: string | null }>`
      SELECT min(cursor)::text AS cursor FROM change_log_readers
      WHERE instance <> ${reader} AND polled_at > now() - make_interval(secs => ${liveMs / 1000})`);
    return cursor;
  }

  /** `reader` reads no more (its instance stops), and readers silent for a day are forgotten. */
  async forgetReader(reader: string): Promise<void> {
    await this.sql.rows(sql`DELETE FROM change_log_readers WHERE instance = ${reader} OR polled_at < now() - interval '1 day'`);
  }

  /** The id of the newest event committed now (null: none kept). */
  async newestEventId(): Promise<string | null> {
    const [{ id }] = await this.sql.rows(sql<{ id: string | null }>`SELECT max(id)::text AS id FROM market_events`);
    return id;
  }

  /** In `tx`: the event of a change to market `marketId`, with its record as the transaction leaves it; its id. */
  async append(tx: Transaction, type: ChangeType, marketId: string): Promise<string> {
    const [{ id }] = await this.sql.rows(
      sql<{ id: string }>`WITH appended AS MATERIALIZED (SELECT append_market_event(${type}, ${marketId})) SELECT ${raw(APPENDED_EVENT_ID)} AS id FROM appended`,
      tx,
    );
    return id;
  }

  /** Up to `limit` of a source's events after `after`, the last sequence deleted, and the last sequenced (as the server read, perhaps a replica, has them). */
  async feed<Market>(source: string, after: string, limit: number): Promise<FeedPage<Market>> {
    const [row] = await this.sql.readRows(sql<FeedPage<Market>>`
      SELECT h.deleted_through, h.last_sequence, COALESCE((
        SELECT json_agg(json_build_object(
          'id', 'evt_' || e.sequence, 'sequence', e.sequence, 'type', e.type,
          'occurred_at', ${raw(rfc3339('e.occurred_at'))}, 'market', e.market) ORDER BY e.sequence)
        FROM (SELECT * FROM market_events WHERE source = ${source} AND sequence > ${after} ORDER BY sequence LIMIT ${limit}) e
      ), '[]'::json) AS changes
      FROM change_log_head h`);
    return row;
  }

  /** The last sequence given to an event, on the primary: a replica's may lag. */
  async head(): Promise<string> {
    const [{ last_sequence: head }] = await this.sql.rows(sql<{ last_sequence: string }>`SELECT last_sequence FROM change_log_head`);
    return head;
  }

  /** One instance at a time; the head keeps the last sequence deleted (a cursor below it has lost events: 4102). */
  async deleteExpired(days: number, batch: number): Promise<number> {
    const [{ deleted }] = await this.sql.rows(sql<{ deleted: number }>`
      WITH expired AS (
        DELETE FROM market_events WHERE id IN (
          SELECT id FROM market_events
          WHERE occurred_at < now() - make_interval(days => ${days}) AND sequence IS NOT NULL AND pg_try_advisory_xact_lock(${raw(ADVISORY_LOCKS.changeLogPruning)})
          ORDER BY sequence LIMIT ${batch})
        RETURNING sequence
      ), moved AS (
        UPDATE change_log_head SET deleted_through = greatest(deleted_through, (SELECT max(sequence) FROM expired))
        WHERE EXISTS (SELECT 1 FROM expired)
      )
      SELECT count(*)::int AS deleted FROM expired`);
    return deleted;
  }
}
