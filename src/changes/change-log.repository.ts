import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Sql, statement } from '../database/sql';
import { rfc3339 } from '../database/sql-fragments';
import type { ChangeEvent, ChangeType, PolledChanges } from './change-event';

const POLL = statement<{ poll: PolledChanges }>('SELECT change_log_poll($1, $2) AS poll');
const APPEND = statement('SELECT append_market_event($1, $2)');

// A source's events after a sequence, with what the feed needs to know of the log's ends.
const FEED = statement<{ head: string; deleted_through: string; changes: ChangeEvent[] }>(`
  SELECT h.last_sequence AS head, h.deleted_through, COALESCE((
    SELECT json_agg(json_build_object(
      'id', 'evt_' || e.sequence, 'sequence', e.sequence, 'type', e.type,
      'occurred_at', ${rfc3339('e.occurred_at')}, 'market', e.market) ORDER BY e.sequence)
    FROM (SELECT * FROM market_events WHERE source = $1 AND sequence > $2 ORDER BY sequence LIMIT $3) e
  ), '[]'::json) AS changes
  FROM change_log_head h`);

// Events older than the retention, a batch at a time, by one instance at a time; the head
// remembers the last sequence deleted (a cursor below it has lost events: 4102).
const DELETE_EXPIRED = statement<{ deleted: number }>(`
  WITH expired AS (
    DELETE FROM market_events WHERE id IN (
      SELECT id FROM market_events
      WHERE occurred_at < now() - make_interval(days => $1) AND sequence IS NOT NULL AND pg_try_advisory_xact_lock(7103, 2)
      ORDER BY sequence LIMIT $2)
    RETURNING sequence
  ), moved AS (
    UPDATE change_log_head SET deleted_through = greatest(deleted_through, (SELECT max(sequence) FROM expired))
    WHERE EXISTS (SELECT 1 FROM expired)
  )
  SELECT count(*)::int AS deleted FROM expired`);

/** The change log's SQL (the functions it calls: change-log.functions.ts). */
@Injectable()
export class ChangeLogRepository {
  constructor(private readonly sql: Sql) {}

  /** Sequences what can be, and the events after `after`. */
  async poll(after: string, limit: number): Promise<PolledChanges> {
    const [{ poll }] = await this.sql.rows(POLL, [after, limit]);
    return poll;
  }

  /** In `manager`'s transaction: the event of a change to market `marketId`, with its record as the transaction leaves it. */
  async append(manager: EntityManager, type: ChangeType, marketId: string): Promise<void> {
    await this.sql.rows(APPEND, [type, marketId], manager);
  }

  /** Up to `limit` of a source's events after `after`, and the log's ends. */
  async feed<Market>(source: string, after: string, limit: number): Promise<{ head: string; deleted_through: string; changes: ChangeEvent<Market>[] }> {
    const [row] = await this.sql.readRows(FEED, [source, after, limit]);
    return row as { head: string; deleted_through: string; changes: ChangeEvent<Market>[] };
  }

  /** Deletes up to `batch` events older than `days` days; how many it deleted. */
  async deleteExpired(days: number, batch: number): Promise<number> {
    const [{ deleted }] = await this.sql.rows(DELETE_EXPIRED, [days, batch]);
    return deleted;
  }
}
