import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ReadReplicas } from '../database/read-replicas';
import { Sql } from '../database/sql';
import { droppedLogLines } from './logging';

/** One registry per app instance; requests are labelled by envelope `code`, since the HTTP status is always 200 under the envelope. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  private readonly requests = new Counter({
    name: 'oracle_http_requests_total',
    help: 'HTTP requests by method, route and envelope code (HTTP status for ops endpoints)',
    labelNames: ['method', 'route', 'code'] as const,
    registers: [this.registry],
  });

  private readonly latency = new Histogram({
    name: 'oracle_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and envelope code',
    labelNames: ['method', 'route', 'code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  /** The (counter, histogram) children of each label set seen: no label hashing per request. */
  private readonly requestSeries = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>();

  readonly disputesFiled = new Counter({
    name: 'oracle_disputes_filed_total',
    help: 'Disputes filed by partners',
    registers: [this.registry],
  });

  readonly decisionsRecorded = new Counter({
    name: 'oracle_decisions_recorded_total',
    help: 'Review decisions recorded, by type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly publicCache = new Counter({
    name: 'oracle_public_cache_lookups_total',
    help: 'Public record cache lookups: hit, miss, or bypass (cache off or not hearing changes)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly publicCacheReloads = new Counter({
    name: 'oracle_public_cache_reloads_total',
    help: 'Public records reloaded ahead of their expiry because partners kept polling them: ok or failed',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly changeLogAckWaits = new Histogram({
    name: 'oracle_change_log_ack_wait_seconds',
    help: 'How long a write waited, before its answer, for every other live instance to read its event; result: read, timeout (one stopped polling) or unknown (the check failed)',
    labelNames: ['result'] as const,
    buckets: [0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1, 2],
    registers: [this.registry],
  });

  readonly changeLogPollFailures = new Counter({
    name: 'oracle_change_log_poll_failures_total',
    help: 'Reads of the change log that failed (the cache is bypassed once none succeeded for CHANGES_DEAF_AFTER_MS)',
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'oracle_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this instance: delivered (a 2xx within 10 s) or failed (retried on the schedule)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveriesGivenUp = new Counter({
    name: 'oracle_webhook_deliveries_given_up_total',
    help: 'Webhook deliveries given up after their last attempt (about 25 hours of retries)',
    registers: [this.registry],
  });

  readonly inFlight = new Gauge({
    name: 'oracle_http_requests_in_flight',
    help: 'Requests being worked on in this process (bodies read, answers not sent)',
    registers: [this.registry],
  });

  readonly unreadAnswerBytes = new Gauge({
    name: 'oracle_http_unread_answer_bytes',
    help: 'Bytes of answers written and not yet taken by their connections (clients not reading), against MAX_UNREAD_ANSWER_BYTES',
    registers: [this.registry],
  });

  readonly bodyBytesHeld = new Gauge({
    name: 'oracle_http_request_body_bytes_held',
    help: 'Bytes of request bodies (by declared length) held in this process, against MAX_BODY_BYTES_IN_FLIGHT',
    registers: [this.registry],
  });

  readonly shed = new Counter({
    name: 'oracle_http_requests_shed_total',
    help: 'Requests refused for lack of capacity (before any work but database-pool), by reason: connection (4290, too many in progress on their connection), process (5031, too many in this process), bodies (5031, too many request bodies held), client-bodies (4290, too many held for one client address), answers (5031, too many answers waiting to be read), client-answers (4290, too many for one client address), connection-closed (a refused connection that kept sending, closed), database-pool (5031, waited past DB_CONNECT_TIMEOUT_MS for a database connection while the pool served others)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly protocolErrors = new Counter({
    name: 'oracle_http_protocol_errors_total',
    help: 'Requests rejected by the HTTP parser (malformed, headers too large, too slow), by envelope code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly rateLimitStoreErrors = new Counter({
    name: 'oracle_rate_limit_store_errors_total',
    help: 'Rate-limit counts that Redis failed or was too slow to make; counted in this instance\'s memory instead',
    registers: [this.registry],
  });

  readonly authFailuresRefused = new Counter({
    name: 'oracle_auth_failures_refused_total',
    help: 'Requests refused (4290) because their client IP failed authentication too often',
    registers: [this.registry],
  });

  /** The public record cache's size, read at each scrape (PublicRecords tells where from). */
  private publicCacheSize = () => ({ entries: 0, bytes: 0 });
  /** The change log reader's state, read at each scrape (ChangeLog tells where from). */
  private changeLogState = () => ({ live: false, ageMs: Number.POSITIVE_INFINITY, cursor: 0 });
  /** Whether the change signal is heard (ChangeSignal tells). */
  private changeSignalListening = () => false;

  constructor(sql: Sql, replicas: ReadReplicas) {
    const cacheSize = () => this.publicCacheSize();
    new Gauge({
      name: 'oracle_public_cache_size',
      help: 'Public records cached: entries, and bytes (estimated) against PUBLIC_CACHE_MAX_BYTES',
      labelNames: ['unit'] as const,
      registers: [this.registry],
      collect() {
        const { entries, bytes } = cacheSize();
        this.set({ unit: 'entries' }, entries);
        this.set({ unit: 'bytes' }, bytes);
      },
    });
    const changeLog = () => this.changeLogState();
    this.gauge(
      'oracle_change_log_live',
      '1 while every change is read within CHANGES_DEAF_AFTER_MS, or heard at once while idle (the public record cache is used), else 0',
      () => (changeLog().live ? 1 : 0),
    );
    this.gauge(
      'oracle_change_signal_listening',
      '1 while the change signal is heard (LISTEN on DATABASE_DIRECT_URL): instances rest while idle; 0: they poll every second',
      () => (this.changeSignalListening() ? 1 : 0),
    );
    this.gauge('oracle_change_log_read_age_seconds', 'Time since this instance last read the change log (idle and listening, it reads only when told)', () => changeLog().ageMs / 1000);
    this.gauge('oracle_change_log_sequence', 'The last event sequence this instance has read', () => changeLog().cursor);
    new Counter({
      name: 'oracle_log_lines_dropped_total',
      help: 'Log lines dropped because stdout was not read fast enough (the buffer is bounded)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(droppedLogLines());
      },
    });
    new Gauge({
      name: 'oracle_db_pool_connections',
      help: 'Database pool connections: in_use, idle, and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const pool = sql.pool;
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    new Gauge({
      name: 'oracle_db_replica_up',
      help: 'Whether each read replica (DATABASE_READ_URL) answers: 1, or 0 (its reads go to the primary)',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const state of replicas.states) this.set({ replica: state.name }, state.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'oracle_db_replica_lag_seconds',
      help: 'How far each read replica is behind the primary, in time (past DB_READ_MAX_LAG_MS its reads go to the primary)',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const state of replicas.states) if (state.lagMs !== null) this.set({ replica: state.name }, state.lagMs / 1000);
      },
    });
    new Counter({
      name: 'oracle_db_reads_total',
      help: 'Reads that may go to a replica, by where they went: replica, or primary (none had every change known, lagged, or failed)',
      labelNames: ['on'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc({ on: 'replica' }, replicas.reads.replica);
        this.inc({ on: 'primary' }, replicas.reads.primary);
      },
    });
    // The event loop's delay sampled every 100 ms, not prom-client's 10 ms: an idle instance wakes 10 times a second, not 100.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
  }

  /** A gauge without labels, read at each scrape. */
  private gauge(name: string, help: string, value: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(value());
      },
    });
  }

  measurePublicCache(size: () => { entries: number; bytes: number }): void {
    this.publicCacheSize = size;
  }

  measureChangeLog(state: () => { live: boolean; ageMs: number; cursor: number }): void {
    this.changeLogState = state;
  }

  measureChangeSignal(listening: () => boolean): void {
    this.changeSignalListening = listening;
  }

  observeRequest(method: string, route: string, code: number, seconds: number): void {
    const key = `${method} ${route} ${code}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      const labels = { method, route, code: String(code) };
      series = { count: this.requests.labels(labels), time: this.latency.labels(labels) };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.time.observe(seconds);
  }
}
