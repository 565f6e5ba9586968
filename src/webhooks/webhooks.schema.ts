/**
 * A partner's webhooks as the admin API answers them, and what is POSTed to them (WebhookEvent),
 * declared once: the handlers' types and, through the swagger CLI plugin, the OpenAPI schemas
 * (webhooks.repository.ts builds the listed ones in SQL).
 */
import { ApiProperty } from '@nestjs/swagger';
import { CHANGE_TYPES, type ChangeType } from '../changes/change-event';
import { MarketItem } from '../markets/market-item.schema';
import { Int64, Timestamp } from '../openapi/responses.schema';
import { REDELIVER_LIMIT } from './redeliver-limit';

const WebhookId = () => ApiProperty({ type: 'integer', format: 'int64', example: 7, description: 'The webhook\'s id: a positive integer, as other ids' });
const Secret = () =>
  ApiProperty({
    pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8w5pS1ZbMHk=',
    description: 'The signing secret in the Standard Webhooks form (`whsec_` and base64 of 32 random bytes); shown once, stored as given',
  });

export class CreatedWebhook {
  @WebhookId()
  webhook_id: number;

  /** As stored (normalized: `https://Hooks.Example` is `https://hooks.example/`). @example "https://hooks.acme.example/oracle" */
  url: string;

  /** @example "Settlement updates for the trading desk" */
  @ApiProperty({ type: 'string', nullable: true })
  description: string | null;

  @Secret()
  secret: string;

  /** Events sequenced from this moment on are delivered to it. @example "2026-11-20T09:00:00.000Z" */
  @Timestamp()
  created_at: string;
}

export class LastDelivery {
  /** When the last attempt ended. @example "2026-11-20T09:00:01.250Z" */
  @Timestamp()
  at: string;

  /** The endpoint's HTTP status; null when no answer came. @example 200 */
  @ApiProperty({ type: 'integer', nullable: true })
  http_status: number | null;

  /** Why the attempt failed; null when it succeeded (a 2xx answer within 10 s). */
  @ApiProperty({ type: 'string', nullable: true, example: 'HTTP 500' })
  error: string | null;
}

export class Webhook {
  @WebhookId()
  webhook_id: number;

  /** @example "https://hooks.acme.example/oracle" */
  url: string;

  /** @example "Settlement updates for the trading desk" */
  @ApiProperty({ type: 'string', nullable: true })
  description: string | null;

  /** @example "2026-11-20T09:00:00.000Z" */
  @Timestamp()
  created_at: string;

  /** Always null today: the service pauses no webhook (a failing one is retried, then given up event by event). */
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  disabled_at: string | null;

  /** The last attempt to this webhook, whatever its event; null before the first. */
  @ApiProperty({ type: () => LastDelivery, nullable: true })
  last_delivery: LastDelivery | null;

  /** Deliveries neither made nor given up yet. @example 0 */
  @ApiProperty({ type: 'integer', minimum: 0 })
  pending: number;

  /** The greatest `data.sequence` the endpoint took (a 2xx answer), whatever came before it; null before the first. Redelivering after it sends only what came since. */
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 1, nullable: true, example: 1042 })
  last_delivered_sequence: number | null;
}

export class WebhookList {
  /** The partner's webhooks not deleted, oldest first (20 at most). */
  @ApiProperty({ type: () => [Webhook] })
  webhooks: Webhook[];

  /** Whether this server takes `http://` URLs and private, loopback and link-local addresses for webhooks (WEBHOOK_ALLOW_PRIVATE_URLS, development only); false: `https://` to public addresses only. @example false */
  private_urls_allowed: boolean;
}

export class DeletedWebhook {
  @WebhookId()
  webhook_id: number;

  /** @example "2026-11-21T09:00:00.000Z" */
  @Timestamp()
  deleted_at: string;
}

export class RotatedSecret {
  @WebhookId()
  webhook_id: number;

  @Secret()
  secret: string;

  /**
   * Until when the replaced secret still signs, beside this one (24 hours from the rotation).
   * @example "2026-11-22T09:00:00.000Z"
   */
  @Timestamp()
  previous_secret_expires_at: string;
}

export class RedeliveryQueued {
  /** Deliveries queued: the source's events after `after`, 10,000 at most (the oldest). @example 12 */
  @ApiProperty({ type: 'integer', minimum: 0 })
  queued: number;
}

export class RedeliveryCount {
  /** Events a redeliver with this `after` would queue now: the source's events after it, 10,000 at most (the oldest); none is queued by asking. @example 12 */
  @ApiProperty({ type: 'integer', minimum: 0, maximum: REDELIVER_LIMIT })
  events: number;
}

export class WebhookEventData {
  /** The event's place among all events of the service (its `evt_<sequence>` is the `webhook-id` header). @example 1042 */
  @Int64()
  sequence: number;

  /** The market's record as get_public_market returned it right after this change. */
  market: MarketItem;
}

export class WebhookEvent {
  /** @example "market.resolved" */
  @ApiProperty({ enum: CHANGE_TYPES })
  type: ChangeType;

  /** When the change was made (the feed's `occurred_at`). @example "2026-11-20T09:00:00.000Z" */
  @Timestamp()
  timestamp: string;

  data: WebhookEventData;
}
