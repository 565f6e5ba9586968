import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Job, type JobInsert, PgBoss } from 'pg-boss';
import { databaseConfig, type DatabaseConfig, webhooksConfig, type WebhooksConfig } from '../config/configuration';
import { MIGRATION_STATEMENT_TIMEOUT_MS } from '../database/data-source-options';
import { DATABASE_LOCATION, type DatabaseLocation } from '../database/database.module';
import { Sql, type Transaction } from '../database/sql';
import { throttledWarning } from '../observability/throttled-warning';
import { ATTEMPT_TIMEOUT_MS } from './webhook-sender';
import type { DeliveryToEnqueue } from './webhooks.repository';

/** pg-boss's schema, and its queues: one job a delivery; a delivery whose attempts ran out lands in the second. */
export const QUEUE_SCHEMA = 'pgboss';
const DELIVERIES = 'webhook-deliveries';
const GIVEN_UP = 'webhook-deliveries-given-up';

// Retry schedule (contract §7): retryDelay (12 s) × 2^(n-1) × (1 + a random fraction) before retry n, capped at an
// hour; 32 retries (33 attempts) span 24.7 to 25.7 hours, then the delivery is given up.
const RETRIES = { retryLimit: 32, retryBackoff: true, retryDelayMax: 3_600 } as const;
/** An attempt held longer than this (its instance died) is retried by another: just above the attempt's own 10 s. */
const EXPIRE_IN_SECONDS = ATTEMPT_TIMEOUT_MS / 1000 + 5;
/** Jobs waiting are kept past the schedule's 25 hours; finished ones 10 minutes (the outcome is on the delivery row). */
const KEPT = { retentionSeconds: 3 * 24 * 3_600, deleteAfterSeconds: 600 } as const;
// Attempts to one webhook in flight across instances (pg-boss's groupConcurrency, the group being the webhook), so a
// hanging endpoint holds that many at most. The count is read without a lock: fetches at the same instant may admit a few more.
const ATTEMPTS_PER_WEBHOOK = 6;
/** pg-boss's own connections per instance, apart from the API's pool. */
const QUEUE_POOL_SIZE = 3;
/** pg-boss's supervision (expiry, given-up moves) runs on one instance at a time, every 15 s: an idle instance pays its statements too. */
const SUPERVISION = { superviseIntervalSeconds: 15, monitorIntervalSeconds: 15, maintenanceIntervalSeconds: 60 } as const;
/** Given-up deliveries are marked so within this (the outcome of a day's retries); at once after a failure settled here. */
const GIVEN_UP_POLL_SECONDS = 30;

export interface DeliveryJob {
  delivery_id: string;
  /** The webhook's partner (absent from jobs queued by earlier releases). */
  source?: string;
}
export type DeliveryJobRef = Job<DeliveryJob>;

const logger = new Logger('Webhooks');

/** As the migrations' role, on DATABASE_DIRECT_URL when set: a session connection, so timeouts are startup parameters. */
export async function installDeliveryQueue(url: string, connectTimeoutMs: number): Promise<void> {
  const boss = new PgBoss({
    connectionString: url,
    schema: QUEUE_SCHEMA,
    application_name: 'settlement-oracle-migrations',
    max: 2,
    connectionTimeoutMillis: connectTimeoutMs,
    options: `-c statement_timeout=${MIGRATION_STATEMENT_TIMEOUT_MS}`,
    migrate: true,
    supervise: false,
    schedule: false,
    registerInstance: false,
  });
  boss.on('error', (error) => logger.warn(`installing the delivery queue: ${error.message}`));
  await boss.start();
  try {
    for (const name of [GIVEN_UP, DELIVERIES]) if (!(await boss.getQueue(name))) await boss.createQueue(name);
  } finally {
    await boss.stop({ graceful: false });
  }
}

// pg-boss (docs/architecture.md): jobs are enqueued in the fan-out's transaction, fetched and settled in batches by
// DeliveryLoop. It sends unnamed statements, so it works behind PgBouncer in transaction mode.
@Injectable()
export class DeliveryQueue {
  private boss: PgBoss | null = null;
  private readonly workers: number;
  private enqueued: () => void = () => undefined;
  private givenUpWorker: string | null = null;
  private readonly firstRetrySeconds: number;

  constructor(
    @Inject(webhooksConfig.KEY) config: WebhooksConfig,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
    @Inject(DATABASE_LOCATION) private readonly location: DatabaseLocation,
    private readonly sql: Sql,
  ) {
    this.workers = config.workers;
    this.firstRetrySeconds = config.firstRetrySeconds;
  }

  /** Whether this instance sends deliveries (and fans events out to them). */
  get sending(): boolean {
    return this.workers > 0;
  }

  /** Starts pg-boss on instances that send (WEBHOOK_WORKERS > 0); `enqueued` is told when this instance queued jobs. */
  async start(givenUp: (deliveryId: string) => Promise<void>, enqueued: () => void): Promise<void> {
    const statementTimeoutMs = this.database.statementTimeoutMs;
    // pg-boss's sessions are the service role's: the server's timeouts are that role's defaults
    // (set at start), and the client's query timeout the pool's, as for the API's statements.
    const boss = new PgBoss({
      connectionString: this.location.url,
      schema: QUEUE_SCHEMA,
      application_name: 'settlement-oracle-webhooks',
      max: QUEUE_POOL_SIZE,
      connectionTimeoutMillis: this.database.connectTimeoutMs,
      query_timeout: statementTimeoutMs + 500,
      keepAlive: true,
      migrate: false,
      schedule: false,
      registerInstance: false,
      ...SUPERVISION,
      reindex: false,
      monitorVacuum: false,
    } as ConstructorParameters<typeof PgBoss>[0]);
    // Each worker's poll fails every half second while the database is away.
    const warn = throttledWarning(logger);
    boss.on('error', (error) => warn(`the webhook delivery queue failed: ${error.message}`));
    await boss.start();
    this.boss = boss;
    this.enqueued = enqueued;
    this.givenUpWorker = await boss.work<DeliveryJob>(GIVEN_UP, { pollingIntervalSeconds: GIVEN_UP_POLL_SECONDS }, async (jobs: Job<DeliveryJob>[]) => {
      for (const job of jobs) await givenUp(job.data.delivery_id);
    });
  }

  /** Up to `limit` jobs due, claimed (SKIP LOCKED: by one instance), none for `skipped` webhooks nor one past ATTEMPTS_PER_WEBHOOK. */
  fetch(limit: number, skipped: string[]): Promise<DeliveryJobRef[]> {
    return this.boss!.fetch<DeliveryJob>(DELIVERIES, { batchSize: limit, groupConcurrency: ATTEMPTS_PER_WEBHOOK, ignoreGroups: skipped });
  }

  /** The jobs done (delivered, or nothing to send), and those failed (retried on the schedule), each in one statement. */
  async settle(done: DeliveryJobRef[], failed: DeliveryJobRef[]): Promise<void> {
    const attempt = (job: DeliveryJobRef) => ({ id: job.id, retryCount: job.retryCount });
    await Promise.all([
      done.length > 0 && this.boss!.complete(DELIVERIES, done.map(attempt)),
      failed.length > 0 && this.boss!.fail(DELIVERIES, failed.map(attempt), { message: 'the attempt failed (its outcome is on the delivery)' }),
    ]);
    // A last failure moved its job to the given-up queue.
    if (failed.length > 0 && this.givenUpWorker) this.boss!.notifyWorker(this.givenUpWorker);
  }

  /** In `tx` (the fan-out's): a job for each delivery, grouped by webhook. */
  async enqueue(tx: Transaction, deliveries: DeliveryToEnqueue[]): Promise<void> {
    const jobs: JobInsert<DeliveryJob>[] = deliveries.map((delivery) => ({
      data: { delivery_id: delivery.id, source: delivery.source },
      group: { id: delivery.webhook_id },
      ...RETRIES,
      retryDelay: this.firstRetrySeconds,
      expireInSeconds: EXPIRE_IN_SECONDS,
      ...KEPT,
      deadLetter: GIVEN_UP,
    }));
    await this.boss!.insert(DELIVERIES, jobs, { db: { executeSql: (text, values) => this.sql.execute(text, values, tx) } });
  }

  /** This instance's delivery loop fetches now, not at its next poll. */
  wake(): void {
    this.enqueued();
  }

  async stop(): Promise<void> {
    await this.boss?.stop({ graceful: true, timeout: 3_000 });
  }
}
