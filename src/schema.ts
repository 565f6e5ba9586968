import { CREDENTIAL_HOLD_FUNCTIONS } from './auth/credential-holds.functions';
import { APPEND_MARKET_EVENT_FUNCTION, CHANGE_LOG_POLL_FUNCTION } from './changes/change-log.functions';
import type { DatabaseSchema } from './database/run-migrations';
import { MARKET_ITEM_FUNCTION } from './markets/market-item';
import { installDeliveryQueue, QUEUE_SCHEMA } from './webhooks/delivery-queue';

// SQL functions are applied after the migrations, in dependency order: a LANGUAGE sql body is checked against what
// exists when it is created. Then the schemas libraries install themselves (pg-boss's).
export const SCHEMA: DatabaseSchema = {
  functions: [...CREDENTIAL_HOLD_FUNCTIONS, MARKET_ITEM_FUNCTION, APPEND_MARKET_EVENT_FUNCTION, CHANGE_LOG_POLL_FUNCTION],
  libraries: [{ schema: QUEUE_SCHEMA, install: installDeliveryQueue }],
};
