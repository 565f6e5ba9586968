import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { webhooksConfig, type WebhooksConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';
import { DeliveryQueue } from './delivery-queue';
import { WebhookFanout } from './webhook-fanout';
import { postDelivery } from './webhook-sender';
import { signedHeaders } from './webhook-signature';
import { WebhooksRepository } from './webhooks.repository';

/** An attempt that failed: pg-boss retries its job on the schedule (delivery-queue.ts). */
class AttemptFailed extends Error {}

/** Makes the attempts pg-boss hands this instance; stops sending before the pool closes: the fan-out, then the queue. */
@Injectable()
export class WebhookDeliverer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly allowPrivate: boolean;

  constructor(
    @Inject(webhooksConfig.KEY) config: WebhooksConfig,
    private readonly repository: WebhooksRepository,
    private readonly queue: DeliveryQueue,
    private readonly fanout: WebhookFanout,
    private readonly metrics: MetricsService,
  ) {
    this.allowPrivate = config.allowPrivateUrls;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.queue.sending) return;
    await this.queue.start({ attempt: (id, stop) => this.attempt(id, stop), givenUp: (id) => this.givenUp(id) });
    this.fanout.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.fanout.stop();
    await this.queue.stop();
  }

  /** One attempt of delivery `id`: none when it was made, dropped or given up meanwhile, or its event is gone. */
  async attempt(id: string, stop: AbortSignal): Promise<void> {
    this.queue.wakeOne();
    const delivery = await this.repository.toSend(id);
    if (!delivery || delivery.state !== 'pending') return;
    if (delivery.body === null) return this.repository.finish(id, 'dropped');
    const headers = signedHeaders(delivery.event_id, delivery.body, delivery.secrets);
    const outcome = await postDelivery(delivery.url, delivery.body, headers, this.allowPrivate, stop);
    this.queue.wakeOne();
    await this.repository.recordAttempt(id, outcome);
    this.metrics.webhookAttempts.inc({ result: outcome.delivered ? 'delivered' : 'failed' });
    if (!outcome.delivered) throw new AttemptFailed(outcome.error ?? 'failed');
  }

  async givenUp(id: string): Promise<void> {
    await this.repository.finish(id, 'given_up');
    this.metrics.webhookDeliveriesGivenUp.inc();
  }
}
