import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ChangeSignal } from '../changes/change-signal';
import { webhooksConfig, type WebhooksConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';
import { throttledWarning, throttledWarningPer } from '../observability/throttled-warning';
import { DeliveryLoop } from './delivery-loop';
import { DeliveryQueue, type DeliveryJobRef } from './delivery-queue';
import { DeliverySettlements, type Settlement } from './delivery-settlements';
import { PartnerShares } from './partner-shares';
import { WebhookFanout } from './webhook-fanout';
import { postDelivery } from './webhook-sender';
import { signedHeaders } from './webhook-signature';
import { WebhooksRepository, type DeliveryToSend } from './webhooks.repository';

/** Attempts in flight per instance for each of WEBHOOK_WORKERS; a partner holds half of them at most. */
export const ATTEMPTS_PER_WORKER = 16;
/** Attempts still running at shutdown get this long, then fail (retried later on the schedule). */
const SHUTDOWN_GRACE_MS = 3_000;

/** Makes the attempts of the jobs it fetches, in batches; stops sending before the pool closes: the fan-out, then the loop, then pg-boss. */
@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly allowPrivate: boolean;
  private readonly warn = throttledWarning(new Logger('Webhooks'));
  /** A failing endpoint fails every attempt: its operators hear of it once a minute, without its URL (a query may hold a token). */
  private readonly warnFailing = throttledWarningPer(new Logger('Webhooks'));
  private readonly loop: DeliveryLoop;
  private readonly settlements: DeliverySettlements<DeliveryJobRef>;
  private readonly shares: PartnerShares;

  constructor(
    @Inject(webhooksConfig.KEY) config: WebhooksConfig,
    private readonly repository: WebhooksRepository,
    private readonly queue: DeliveryQueue,
    private readonly fanout: WebhookFanout,
    private readonly metrics: MetricsService,
    private readonly signal: ChangeSignal,
  ) {
    this.allowPrivate = config.allowPrivateUrls;
    const capacity = config.workers * ATTEMPTS_PER_WORKER;
    this.loop = new DeliveryLoop(capacity, (limit, stop) => this.take(limit, stop), this.warn);
    this.shares = new PartnerShares(Math.max(ATTEMPTS_PER_WORKER, capacity / 2));
    this.settlements = new DeliverySettlements((batch) => this.settle(batch), this.warn);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queue.sending) return;
    await this.queue.start((id) => this.givenUp(id), () => this.loop.wake());
    // Jobs another instance's fan-out queued.
    this.signal.subscribe(() => this.loop.wake(), 'deliveries');
    this.loop.start();
    this.fanout.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.queue.sending) return;
    await this.fanout.stop();
    await this.loop.stop(SHUTDOWN_GRACE_MS);
    await this.queue.stop();
  }

  /** Up to `limit` jobs claimed, their deliveries read in one statement, their attempts started. */
  private async take(limit: number, stop: AbortSignal): Promise<Promise<void>[]> {
    const jobs = await this.queue.fetch(limit, this.shares.skipped());
    if (jobs.length === 0) return [];
    for (const job of jobs) this.shares.started(job);
    let deliveries: Map<string, DeliveryToSend>;
    try {
      deliveries = new Map((await this.repository.toSend(jobs.map((job) => job.data.delivery_id))).map((delivery) => [delivery.id, delivery]));
    } catch (error) {
      // Left active, they are retried once they expire.
      for (const job of jobs) this.shares.ended(job);
      this.warn(`reading webhook deliveries failed: ${(error as Error).message}`);
      return [];
    }
    return jobs.map((job) => this.attempt(job, deliveries.get(job.data.delivery_id), stop).finally(() => this.shares.ended(job)));
  }

  /** One attempt: none when it was made, dropped or given up meanwhile, or its event is gone. */
  private async attempt(job: DeliveryJobRef, delivery: DeliveryToSend | undefined, stop: AbortSignal): Promise<void> {
    if (!delivery || delivery.state !== 'pending') return this.settlements.add(job, null);
    if (delivery.body === null) {
      await this.repository.finish(delivery.id, 'dropped');
      return this.settlements.add(job, null);
    }
    const headers = signedHeaders(delivery.event_id, delivery.body, delivery.secrets);
    const outcome = await postDelivery(delivery.url, delivery.body, headers, this.allowPrivate, stop);
    this.metrics.webhookAttempts.inc({ result: outcome.delivered ? 'delivered' : 'failed' });
    if (!outcome.delivered) {
      const partner = job.data.source === undefined ? '' : ` of partner ${job.data.source}`;
      this.warnFailing(delivery.webhook_id, `webhook ${delivery.webhook_id}${partner}: a delivery attempt failed (${outcome.error}); retried on the schedule`);
    }
    return this.settlements.add(job, outcome);
  }

  /** Outcomes on the deliveries first, then the jobs: a crash between the two sends again (at least once). */
  private async settle(batch: Settlement<DeliveryJobRef>[]): Promise<void> {
    const made = batch.filter((settled) => settled.outcome !== null).map((settled) => ({ id: settled.job.data.delivery_id, outcome: settled.outcome! }));
    if (made.length > 0) await this.repository.recordAttempts(made);
    const failed = (settled: Settlement<DeliveryJobRef>) => settled.outcome !== null && !settled.outcome.delivered;
    await this.queue.settle(
      batch.filter((settled) => !failed(settled)).map((settled) => settled.job),
      batch.filter(failed).map((settled) => settled.job),
    );
  }

  async givenUp(id: string): Promise<void> {
    await this.repository.finish(id, 'given_up');
    this.metrics.webhookDeliveriesGivenUp.inc();
  }
}
