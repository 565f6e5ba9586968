import { CREDENTIAL_HOLD_FUNCTIONS } from './auth/credential-holds.functions';
import { APPEND_MARKET_EVENT_FUNCTION, CHANGE_LOG_POLL_FUNCTION } from './changes/change-log.functions';
import type { DatabaseSchema } from './database/database.module';
import { FILE_DISPUTE_FUNCTION } from './disputes/file-dispute.function';
import { MARKET_ITEM_FUNCTION } from './markets/market-item';
import { installDeliveryQueue, QUEUE_SCHEMA } from './webhooks/delivery-queue';

/**
 * The SQL functions the modules call, each defined once beside the code that calls it and
 * applied after the migrations (by the app at start and by `migrate.js run`), in dependency
 * order: a LANGUAGE sql body is checked against what exists when it is created. Then the
 * schemas libraries install themselves: pg-boss's, the webhook deliveries' queue.
 */
export const SCHEMA: DatabaseSchema = {
  functions: [...CREDENTIAL_HOLD_FUNCTIONS, MARKET_ITEM_FUNCTION, APPEND_MARKET_EVENT_FUNCTION, CHANGE_LOG_POLL_FUNCTION, FILE_DISPUTE_FUNCTION],
  libraries: [{ schema: QUEUE_SCHEMA, install: installDeliveryQueue }],
};
