import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { getHeapStatistics } from 'node:v8';
import { AuthVariables } from './auth.variables';
import { ChangesVariables } from './changes.variables';
import { DatabaseVariables } from './database.variables';
import { EdgeVariables } from './edge.variables';
import { HttpVariables } from './http.variables';
import { LoggingVariables } from './logging.variables';
import { RateLimitVariables } from './rate-limits.variables';
import { StartupError } from './startup-error';
import { WebhooksVariables } from './webhooks.variables';

/** Every variable the service reads, by concern (defaults as in the README); validated whole, so one line names every bad value. */
const SCHEMAS = [HttpVariables, DatabaseVariables, AuthVariables, LoggingVariables, RateLimitVariables, ChangesVariables, EdgeVariables, WebhooksVariables];

export type Environment = HttpVariables & DatabaseVariables & AuthVariables & LoggingVariables & RateLimitVariables & ChangesVariables & EdgeVariables & WebhooksVariables;

/** Every variable with its default (the optional ones undefined). */
export function environmentDefaults(): Environment {
  return Object.assign({}, ...SCHEMAS.map((schema) => new schema())) as Environment;
}

/** Variables whose values are never shown, even refused: they may carry a password or a key. */
const SECRETS = new Set(['DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_READ_URL', 'ADMIN_MASTER_KEY', 'REDIS_URL']);

/** Validates `process.env`; throws a StartupError, one line naming every bad variable. */
export function validateEnvironment(raw: Record<string, unknown>): Environment {
  const parts = SCHEMAS.map((schema) => {
    const own = Object.keys(new schema()).filter((name) => name in raw).map((name) => [name, raw[name]]);
    return plainToInstance<object, unknown>(schema, Object.fromEntries(own), { exposeDefaultValues: true });
  });
  const errors = parts.flatMap((part) => validateSync(part, { whitelist: false }));
  const environment = Object.assign({}, ...parts) as Environment;
  const lines = errors.map((error) => {
    const shown = SECRETS.has(error.property) ? '(hidden)' : JSON.stringify(error.value);
    return `${error.property}=${shown}: ${[...new Set(Object.values(error.constraints ?? {}))].join(', ')}`;
  });
  if (errors.length === 0 && environment.CHANGES_DEAF_AFTER_MS < 2 * environment.CHANGES_POLL_INTERVAL_MS) {
    lines.push(`CHANGES_DEAF_AFTER_MS=${environment.CHANGES_DEAF_AFTER_MS}: must be at least twice CHANGES_POLL_INTERVAL_MS (${environment.CHANGES_POLL_INTERVAL_MS}), or every late poll would bypass the cache`);
  }
  if (errors.length === 0 && environment.METRICS_PORT === environment.PORT) {
    lines.push(`METRICS_PORT=${environment.METRICS_PORT}: must differ from PORT, so that the metrics are not served to clients`);
  }
  if (errors.length === 0 && environment.MAX_REQUESTS_PER_CONNECTION >= environment.DB_POOL_SIZE) {
    lines.push(
      `MAX_REQUESTS_PER_CONNECTION=${environment.MAX_REQUESTS_PER_CONNECTION}: must be below DB_POOL_SIZE ` +
        `(${environment.DB_POOL_SIZE}), or one connection could hold every database connection`,
    );
  }
  const heapLimit = getHeapStatistics().heap_size_limit;
  if (errors.length === 0 && environment.PUBLIC_CACHE_MAX_BYTES > heapLimit / 5) {
    lines.push(
      `PUBLIC_CACHE_MAX_BYTES=${environment.PUBLIC_CACHE_MAX_BYTES}: must be at most a fifth of the heap's limit ` +
        `(${Math.floor(heapLimit / 5)} bytes here; node's --max-old-space-size sets it), or reads of large records could exhaust the heap`,
    );
  }
  if (lines.length > 0) throw new StartupError(`invalid configuration: ${lines.join('; ')}`);
  return environment;
}
