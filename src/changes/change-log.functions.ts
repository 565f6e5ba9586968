import { ADVISORY_LOCKS } from '../database/advisory-locks';

/** Events sequenced by one poll at most: the rest by the next ones. */
const SEQUENCE_BATCH = 10_000;

/** The channels of the change signal (change-signal.ts): once per batch of sequenced events (and a queued redelivery); once per fan-out that queued deliveries. */
export const CHANGE_SIGNAL_CHANNEL = 'oracle_changes';
export const DELIVERIES_SIGNAL_CHANNEL = 'oracle_deliveries';

/** After an append, in the same statement: the event's id (the sequence's last value is the session's own). */
export const APPENDED_EVENT_ID = "currval(pg_get_serial_sequence('market_events', 'id'))::text";

/** An event of market `p_market_id`'s change, in the calling transaction, carrying its record as it is now. */
export const APPEND_MARKET_EVENT_FUNCTION = `
  CREATE OR REPLACE FUNCTION append_market_event(p_type text, p_market_id bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO market_events (type, source, slug, market_id, market)
    SELECT p_type, m.source, m.slug, m.id, market_item(m) FROM markets m WHERE m.id = p_market_id
  $$`;

// One sequencer at a time (an advisory lock, tried, never waited for). An event is sequenced once its txid is below a fresh snapshot's xmin: no running transaction can still commit a smaller one.
// Sequences commit in one statement with the lock, so no reader sees sequence s before every event up to s; each statement of this VOLATILE function snapshots after the lock.
// The primary's LSN is returned because read replicas are measured against it; how long events have waited, by the
// database's clock from their transaction's start, so every instance counts the wait from before the write's commit.
// One NOTIFY per batch sequenced, never per write: only the sequencer's commit (one at a time) takes NOTIFY's lock.
export const CHANGE_LOG_POLL_FUNCTION = `
  CREATE OR REPLACE FUNCTION change_log_poll(p_after bigint, p_limit integer) RETURNS json VOLATILE LANGUAGE plpgsql AS $$
  DECLARE
    v_last bigint;
  BEGIN
    IF pg_try_advisory_xact_lock(${ADVISORY_LOCKS.changeLogSequencer}) THEN
      WITH pending AS (
        SELECT e.id, row_number() OVER (ORDER BY e.id) AS n FROM market_events e
        WHERE e.sequence IS NULL AND e.txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
        ORDER BY e.id LIMIT ${SEQUENCE_BATCH}
      ), sequenced AS (
        UPDATE market_events e SET sequence = h.last_sequence + p.n, sequenced_lsn = pg_current_wal_lsn()
        FROM pending p, change_log_head h WHERE e.id = p.id
        RETURNING e.sequence
      )
      UPDATE change_log_head h SET last_sequence = s.last, last_lsn = pg_current_wal_lsn()
      FROM (SELECT max(sequence) AS last FROM sequenced) s WHERE s.last IS NOT NULL
      RETURNING h.last_sequence INTO v_last;
      IF v_last IS NOT NULL THEN PERFORM pg_notify('${CHANGE_SIGNAL_CHANNEL}', v_last::text); END IF;
    END IF;
    RETURN json_build_object(
      'head', (SELECT last_sequence FROM change_log_head),
      'lsn', pg_current_wal_lsn()::text,
      'oldest_pending', (SELECT min(id) FROM market_events WHERE sequence IS NULL),
      'pending_for_ms', (SELECT extract(epoch FROM clock_timestamp() - min(occurred_at)) * 1000 FROM market_events WHERE sequence IS NULL),
      'events', COALESCE((
        SELECT json_agg(json_build_object('sequence', e.sequence, 'source', e.source, 'slug', e.slug, 'lsn', e.sequenced_lsn) ORDER BY e.sequence)
        FROM (SELECT sequence, source, slug, sequenced_lsn FROM market_events WHERE sequence > p_after ORDER BY sequence LIMIT p_limit) e
      ), '[]'::json));
  END $$`;
