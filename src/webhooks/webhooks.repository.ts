import { Injectable } from '@nestjs/common';
import { raw, Sql, sql, type Transaction } from '../database/sql';
import { rfc3339 } from '../database/sql-fragments';
import type { DeliveryOutcome } from './webhook-sender';
import type { Webhook } from './webhooks.schema';

/** What an attempt needs: where, the secrets that sign, the body; `state` other than pending: nothing to send. */
export interface DeliveryToSend {
  id: string;
  webhook_id: string;
  state: 'pending' | 'delivered' | 'given_up' | 'dropped';
  url: string;
  secrets: string[];
  event_id: string;
  body: string | null;
}

/** A delivery row the fan-out has not yet put on the queue. */
export interface DeliveryToEnqueue {
  id: string;
  webhook_id: string;
  /** The webhook's partner: its deliveries share one partner's part of the workers. */
  source: string;
}

/** An attempt's outcome, recorded with others in one statement. */
export interface AttemptMade {
  id: string;
  outcome: DeliveryOutcome;
}

const VIEW = raw(`json_build_object(
  'webhook_id', w.id, 'url', w.url, 'description', w.description,
  'created_at', ${rfc3339('w.created_at')}, 'disabled_at', ${rfc3339('w.disabled_at')},
  'last_delivery', CASE WHEN w.last_delivery_at IS NULL THEN NULL ELSE json_build_object(
    'at', ${rfc3339('w.last_delivery_at')}, 'http_status', w.last_delivery_status, 'error', w.last_delivery_error) END,
  'pending', (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending'),
  'last_delivered_sequence', w.last_delivered_sequence)`);

/** `source`'s first `limit` events after `after`, oldest first: what a redeliver queues again. */
const redeliverable = (source: string, after: number, limit: number) =>
  sql`SELECT e.sequence FROM market_events e WHERE e.source = ${source} AND e.sequence > ${after} ORDER BY e.sequence LIMIT ${limit}`;

/** Webhooks, their deliveries and the fan-out's head: the Webhooks module's SQL. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly sql: Sql) {}

  /** A new webhook of `source`, receiving the events sequenced from now on; with how many it has now. */
  async insert(tx: Transaction, source: string, url: string, description: string | null, secret: string): Promise<{ id: string; created_at: string; count: number }> {
    const [row] = await this.sql.rows(
      sql<{ id: string; created_at: string; count: number }>`
        WITH inserted AS (
          INSERT INTO webhooks (source, url, description, secret, after_sequence)
          SELECT ${source}, ${url}, ${description}, ${secret}, last_sequence FROM change_log_head
          RETURNING id, created_at
        )
        SELECT id, ${raw(rfc3339('created_at'))} AS created_at,
          (SELECT count(*)::int FROM webhooks WHERE source = ${source} AND deleted_at IS NULL) + 1 AS count
        FROM inserted`,
      tx,
    );
    return row;
  }

  /** `source`'s webhooks not deleted, oldest first. */
  async list(source: string): Promise<Webhook[]> {
    const rows = await this.sql.readRows(sql<{ view: Webhook }>`
      SELECT ${VIEW} AS view FROM webhooks w WHERE w.source = ${source} AND w.deleted_at IS NULL ORDER BY w.id`);
    return rows.map((row) => row.view);
  }

  /** Locks webhook `id` of `source` if it exists and is not deleted. */
  async lock(tx: Transaction, source: string, id: string): Promise<boolean> {
    const rows = await this.sql.rows(sql`SELECT 1 FROM webhooks WHERE id = ${id} AND source = ${source} AND deleted_at IS NULL FOR UPDATE`, tx);
    return rows.length > 0;
  }

  /** Deletes webhook `id` (kept for its deliveries' history); its deliveries not made are dropped. */
  async delete(tx: Transaction, id: string): Promise<string> {
    const [{ deleted_at }] = await this.sql.rows(
      sql<{ deleted_at: string }>`
        WITH dropped AS (
          UPDATE webhook_deliveries SET state = 'dropped', finished_at = now() WHERE webhook_id = ${id} AND state = 'pending'
        )
        UPDATE webhooks SET deleted_at = now() WHERE id = ${id} RETURNING ${raw(rfc3339('deleted_at'))} AS deleted_at`,
      tx,
    );
    return deleted_at;
  }

  /** `secret` signs from now on; the one it replaces still signs for `hours`: until when. */
  async rotate(tx: Transaction, id: string, secret: string, hours: number): Promise<string> {
    const [{ until }] = await this.sql.rows(
      sql<{ until: string }>`
        UPDATE webhooks SET previous_secret = secret, previous_secret_until = now() + make_interval(hours => ${hours}), secret = ${secret}
        WHERE id = ${id} RETURNING ${raw(rfc3339('previous_secret_until'))} AS until`,
      tx,
    );
    return until;
  }

  /** Queues `source`'s first `limit` events after `after` again for webhook `id` (the fan-out enqueues them); how many. */
  async redeliver(tx: Transaction, id: string, source: string, after: number, limit: number): Promise<number> {
    const [{ queued }] = await this.sql.rows(
      sql<{ queued: number }>`
        WITH queued AS (
          INSERT INTO webhook_deliveries (webhook_id, sequence)
          SELECT ${id}, r.sequence FROM (${redeliverable(source, after, limit)}) r
          RETURNING 1
        )
        SELECT count(*)::int AS queued FROM queued`,
      tx,
    );
    return queued;
  }

  /** How many events a redeliver after `after` would queue to webhook `id` of `source` now; undefined when there is no such webhook. */
  async countRedeliverable(id: string, source: string, after: number, limit: number): Promise<number | undefined> {
    const [row] = await this.sql.readRows(sql<{ events: number }>`
      SELECT (SELECT count(*)::int FROM (${redeliverable(source, after, limit)}) r) AS events
      FROM webhooks WHERE id = ${id} AND source = ${source} AND deleted_at IS NULL`);
    return row?.events;
  }

  // One instance at a time (the head's row, locked or skipped): a delivery for each of the next `batch` events up to
  // `upTo` and each webhook of its source registered before it, then the head moves past them. Null when another instance holds it.
  async fanOut(tx: Transaction, batch: number, upTo: bigint): Promise<{ events: number } | null> {
    const [row] = await this.sql.rows(
      sql<{ locked: boolean; events: number }>`
        WITH head AS (
          SELECT last_sequence FROM webhook_fanout_head FOR UPDATE SKIP LOCKED
        ), events AS (
          SELECT e.sequence, e.source FROM market_events e, head
          WHERE e.sequence > head.last_sequence AND e.sequence <= ${upTo.toString()} ORDER BY e.sequence LIMIT ${batch}
        ), inserted AS (
          INSERT INTO webhook_deliveries (webhook_id, sequence)
          SELECT w.id, e.sequence FROM events e
          JOIN webhooks w ON w.source = e.source AND w.deleted_at IS NULL AND w.after_sequence < e.sequence
          ORDER BY e.sequence, w.id
        ), moved AS (
          UPDATE webhook_fanout_head SET last_sequence = (SELECT max(sequence) FROM events) WHERE EXISTS (SELECT 1 FROM events)
        )
        SELECT EXISTS (SELECT 1 FROM head) AS locked, (SELECT count(*)::int FROM events) AS events`,
      tx,
    );
    return row.locked ? { events: row.events } : null;
  }

  /** In the fan-out's transaction: up to `limit` deliveries not yet on the queue, oldest first. */
  toEnqueue(tx: Transaction, limit: number): Promise<DeliveryToEnqueue[]> {
    return this.sql.rows(
      sql<DeliveryToEnqueue>`SELECT d.id, d.webhook_id, w.source FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE NOT d.enqueued ORDER BY d.id LIMIT ${limit}`,
      tx,
    );
  }

  async markEnqueued(tx: Transaction, ids: string[]): Promise<void> {
    await this.sql.rows(sql`UPDATE webhook_deliveries SET enqueued = true WHERE id = ANY(${ids}::bigint[])`, tx);
  }

  /** Deliveries `ids` with what their attempts send: the body as PostgreSQL writes it, the same bytes on every attempt. */
  toSend(ids: string[]): Promise<DeliveryToSend[]> {
    return this.sql.rows(sql<DeliveryToSend>`
      SELECT d.id::text, d.webhook_id::text, d.state, w.url, 'evt_' || d.sequence AS event_id,
        array_remove(ARRAY[w.secret, CASE WHEN w.previous_secret_until > now() THEN w.previous_secret END], NULL) AS secrets,
        (SELECT json_build_object('type', e.type, 'timestamp', ${raw(rfc3339('e.occurred_at'))},
          'data', json_build_object('sequence', e.sequence, 'market', e.market))::text
         FROM market_events e WHERE e.sequence = d.sequence) AS body
      FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.id = ANY(${ids}::bigint[])`);
  }

  // Attempts' outcomes, on each delivery (delivered, or one attempt more) and as its webhook's last delivery (the last
  // attempt given) and last delivered sequence. Webhooks are locked in id order: batches of two instances never deadlock.
  async recordAttempts(attempts: AttemptMade[]): Promise<void> {
    const column = <T>(pick: (outcome: DeliveryOutcome) => T) => attempts.map((attempt) => pick(attempt.outcome));
    await this.sql.rows(sql`
      WITH outcome AS (
        SELECT * FROM unnest(${attempts.map((attempt) => attempt.id)}::bigint[], ${column((o) => o.delivered)}::boolean[],
          ${column((o) => o.httpStatus)}::int[], ${column((o) => o.error)}::text[]) WITH ORDINALITY AS o(id, delivered, http_status, error, n)
      ), delivery AS (
        UPDATE webhook_deliveries d SET attempts = d.attempts + 1,
          state = CASE WHEN o.delivered AND d.state = 'pending' THEN 'delivered' ELSE d.state END,
          finished_at = CASE WHEN o.delivered AND d.state = 'pending' THEN now() ELSE d.finished_at END
        FROM outcome o WHERE d.id = o.id
        RETURNING d.webhook_id, d.sequence, o.delivered, o.http_status, o.error, o.n
      ), latest AS (
        SELECT DISTINCT ON (webhook_id) webhook_id, http_status, error,
          max(sequence) FILTER (WHERE delivered) OVER (PARTITION BY webhook_id) AS delivered_through
        FROM delivery ORDER BY webhook_id, n DESC
      ), locked AS (
        SELECT w.id FROM webhooks w WHERE w.id IN (SELECT webhook_id FROM latest) ORDER BY w.id FOR UPDATE
      )
      UPDATE webhooks w SET last_delivery_at = now(), last_delivery_status = l.http_status, last_delivery_error = l.error,
        last_delivered_sequence = GREATEST(w.last_delivered_sequence, l.delivered_through)
      FROM latest l WHERE w.id = l.webhook_id AND w.id IN (SELECT id FROM locked)`);
  }

  /** Delivery `id` is given up (its attempts ran out), or was not to be made (its event or webhook is gone). */
  async finish(id: string, state: 'given_up' | 'dropped'): Promise<void> {
    await this.sql.rows(sql`UPDATE webhook_deliveries SET state = ${state}, finished_at = now() WHERE id = ${id} AND state = 'pending'`);
  }

  /** Deletes up to `batch` deliveries finished over `days` days ago; how many. */
  async deleteFinished(days: number, batch: number): Promise<number> {
    const [{ deleted }] = await this.sql.rows(sql<{ deleted: number }>`
      WITH gone AS (
        DELETE FROM webhook_deliveries WHERE id IN (
          SELECT id FROM webhook_deliveries WHERE finished_at < now() - make_interval(days => ${days}) LIMIT ${batch})
        RETURNING 1
      )
      SELECT count(*)::int AS deleted FROM gone`);
    return deleted;
  }
}
