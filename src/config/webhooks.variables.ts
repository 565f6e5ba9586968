import { Transform } from 'class-transformer';
import { IsBoolean } from 'class-validator';
import { IntVariable, toBoolean } from './variables';

/** The variables of webhook deliveries. */
export class WebhooksVariables {
  /** Webhook delivery workers of this instance, 16 attempts in flight each; 0: it sends none (API-only instances), others do. */
  @IntVariable(0, 100)
  WEBHOOK_WORKERS = 4;

  /** true: webhook URLs may be http:// and reach private and loopback addresses (local development and tests only). */
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_URLS = false;

  /** Test-only: the first retry delay of a failed webhook delivery, in seconds (the schedule doubles it from there). */
  @IntVariable(1, 12)
  WEBHOOK_FIRST_RETRY_SECONDS = 12;
}
