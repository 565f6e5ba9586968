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
// Per webhook across instances (groupConcurrency), so a hanging endpoint holds about this many workers. The count is
// read without a lock: fetches at the same instant may admit one or two more.
const ATTEMPTS_PER_WEBHOOK = 2;
/** pg-boss's own connections per instance, apart from the API's pool. */
const QUEUE_POOL_SIZE = 3;
/** How often idle workers look for jobs (pg-boss's floor); a fan-out, and each attempt, wakes one at once (wakeOne). */
const POLL_SECONDS = 0.5;
/** pg-boss's supervision runs on one instance at a time. */
const SUPERVISION = { superviseIntervalSeconds: 5, monitorIntervalSeconds: 10, maintenanceIntervalSeconds: 60 } as const;
const GIVEN_UP_POLL_SECONDS = 5;

interface DeliveryJob {
  delivery_id: string;
}

export interface DeliveryHandlers {
  /** One attempt; throws when it failed, so pg-boss retries it. */
  attempt(deliveryId: string, stop: AbortSignal): Promise<void>;
  givenUp(deliveryId: string): Promise<void>;
}

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

// pg-boss (docs/architecture.md): jobs are enqueued in the fan-out's transaction. It polls (no LISTEN) and sends
// unnamed statements, so it works behind PgBouncer in transaction mode.
@Injectable()
export class DeliveryQueue {
  private boss: PgBoss | null = null;
  private readonly workers: number;
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

  /** Starts this instance's workers (WEBHOOK_WORKERS > 0). */
  async start(handlers: DeliveryHandlers): Promise<void> {
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
    await boss.work<DeliveryJob>(
      DELIVERIES,
      { localConcurrency: this.workers, batchSize: 1, pollingIntervalSeconds: POLL_SECONDS, groupConcurrency: ATTEMPTS_PER_WEBHOOK },
      ([job]) => handlers.attempt(job.data.delivery_id, job.signal),
    );
    await boss.work<DeliveryJob>(GIVEN_UP, { pollingIntervalSeconds: GIVEN_UP_POLL_SECONDS }, async (jobs: Job<DeliveryJob>[]) => {
      for (const job of jobs) await handlers.givenUp(job.data.delivery_id);
    });
  }

  /** In `tx` (the fan-out's): a job for each delivery, grouped by webhook. */
  async enqueue(tx: Transaction, deliveries: DeliveryToEnqueue[]): Promise<void> {
    const jobs: JobInsert<DeliveryJob>[] = deliveries.map((delivery) => ({
      data: { delivery_id: delivery.id },
      group: { id: delivery.webhook_id },
      ...RETRIES,
      retryDelay: this.firstRetrySeconds,
      expireInSeconds: EXPIRE_IN_SECONDS,
      ...KEPT,
      deadLetter: GIVEN_UP,
    }));
    await this.boss!.insert(DELIVERIES, jobs, { db: { executeSql: (text, values) => this.sql.execute(text, values, tx) } });
  }

  // One idle worker fetches now, not at its next poll, so a backlog is claimed back to back. Never several at once:
  // simultaneous fetches can pass a webhook's attempt limit together.
  wakeOne(): void {
    const idle = this.boss?.getWipData().find((worker) => worker.name === DELIVERIES && worker.count === 0);
    if (idle) this.boss!.notifyWorker(idle.id);
  }

  /** Attempts in progress get a short grace; what is still running then is failed and retried later. */
  async stop(): Promise<void> {
    await this.boss?.stop({ graceful: true, timeout: 3_000 });
  }
}
