import { Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ChangeLog, FALLBACK_POLL_MS, type ChangeListener } from '../changes/change-log';
import { ChangeSignal } from '../changes/change-signal';
import { Sql } from '../database/sql';
import { throttledWarning } from '../observability/throttled-warning';
import { DeliveryQueue } from './delivery-queue';
import { WebhooksRepository } from './webhooks.repository';

/** Events, and deliveries, one fan-out transaction takes at most; a backlog takes several. */
const FANOUT_BATCH = 500;
/** The least time between two fan-outs of an instance while writes keep coming (each takes up to FANOUT_BATCH events). */
const FANOUT_GAP_MS = 100;
/** How often deliveries finished over FINISHED_KEPT_DAYS ago are deleted, a batch at a time. */
const CLEANUP_INTERVAL_MS = 60 * 60_000;
const FINISHED_KEPT_DAYS = 7;
const CLEANUP_BATCH = 10_000;

/** Change-log events into webhook deliveries, each exactly once (docs/architecture.md#webhooks); never inside a write's transaction. */
@Injectable()
export class WebhookFanout implements ChangeListener {
  private readonly logger = new Logger('Webhooks');
  private readonly warn = throttledWarning(this.logger);
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private cleanup: NodeJS.Timeout | undefined;
  private started = false;

  constructor(
    private readonly sql: Sql,
    private readonly repository: WebhooksRepository,
    private readonly queue: DeliveryQueue,
    private readonly changes: ChangeLog,
    private readonly signal: ChangeSignal,
  ) {
    if (!queue.sending) return;
    changes.subscribe(this);
    // Redeliveries queued on other instances raise the signal too; without it, they are looked for every FALLBACK_POLL_MS.
    signal.subscribe(() => this.soon());
  }

  /** Once the queue has started, on instances that send. */
  start(): void {
    this.started = true;
    this.timer = setInterval(() => this.signal.listening || this.soon(), FALLBACK_POLL_MS).unref();
    // What earlier instances left (one killed mid-fan-out): the signal is heard only from now on.
    this.soon();
    this.cleanup = setInterval(() => void this.deleteFinished(), CLEANUP_INTERVAL_MS).unref();
  }

  /** No fan-out starts from now on; resolves once the one in progress has ended. */
  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.timer);
    clearInterval(this.cleanup);
    await this.running;
  }

  changed(): void {
    this.soon();
  }

  /** Redeliveries were committed: this instance and every other that sends fan them out now. */
  redeliveriesQueued(): void {
    this.soon();
    void this.signal.raise().catch(() => undefined);
  }

  /** A fan-out that starts after this call (one in progress may have read the log before the news). */
  soon(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runWhileAsked().finally(() => (this.running = null));
  }

  /** FANOUT_GAP_MS after a fan-out that found events; at once after one that found none, as a writer's news comes before its event has a sequence. */
  private async runWhileAsked(): Promise<void> {
    do {
      this.again = false;
      const events = await this.fanOut().catch((error: Error) => {
        this.warn(`fanning events out to webhooks failed (tried again within a second): ${error.message}`);
        return 0;
      });
      if (this.again && events > 0) await sleep(FANOUT_GAP_MS);
    } while (this.again && this.started);
  }

  /** Fans out every event and redelivery waiting (unless another instance is at it); the events it took. */
  private async fanOut(): Promise<number> {
    // A delivery tells its partner a write happened: every instance serves that write by then (contract §9).
    const readUpTo = await this.changes.readEverywhere();
    if (readUpTo === null) return 0;
    let events = 0;
    for (let more = true; more; ) {
      const enqueued = await this.sql.transaction(async (tx) => {
        const fanned = await this.repository.fanOut(tx, FANOUT_BATCH, readUpTo);
        if (!fanned) return null;
        const deliveries = await this.repository.toEnqueue(tx, FANOUT_BATCH);
        if (deliveries.length > 0) {
          await this.queue.enqueue(tx, deliveries);
          await this.repository.markEnqueued(tx, deliveries.map((delivery) => delivery.id));
          await this.signal.deliveriesQueued(tx);
        }
        return { events: fanned.events, deliveries: deliveries.length };
      });
      if (enqueued && enqueued.deliveries > 0) this.queue.wake();
      events += enqueued?.events ?? 0;
      more = enqueued !== null && (enqueued.events === FANOUT_BATCH || enqueued.deliveries === FANOUT_BATCH);
    }
    return events;
  }

  private async deleteFinished(): Promise<void> {
    try {
      while ((await this.repository.deleteFinished(FINISHED_KEPT_DAYS, CLEANUP_BATCH)) === CLEANUP_BATCH);
    } catch (error) {
      this.logger.warn(`deleting finished webhook deliveries failed (tried again within the hour): ${(error as Error).message}`);
    }
  }
}
