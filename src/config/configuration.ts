import { type ConfigType, registerAs } from '@nestjs/config';
import { type Environment, validateEnvironment } from './environment';
import { LOOPBACK } from './listening';
import { itemsOf } from './variables';

let validated: { raw: string; environment: Environment } | undefined;

/** The environment, validated once for each distinct set of values (tests change process.env between apps). */
function environment(): Environment {
  const raw = JSON.stringify(process.env);
  if (validated?.raw !== raw) validated = { raw, environment: validateEnvironment(process.env) };
  return validated.environment;
}

export const httpConfig = registerAs('http', () => {
  const e = environment();
  return {
    port: e.PORT,
    /** undefined: every interface, as a server in a container must listen. */
    host: e.HOST ?? (e.DATABASE_URL === undefined ? LOOPBACK : undefined),
    metricsPort: e.METRICS_PORT,
    trustProxy: e.TRUST_PROXY,
    corsOrigins: itemsOf(e.CORS_ORIGINS),
    headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    shutdownDelayMs: e.SHUTDOWN_DELAY_MS,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
  };
});

/** The process's own limits (EdgeModule). */
export const edgeConfig = registerAs('edge', () => {
  const e = environment();
  return {
    maxRequestsPerConnection: e.MAX_REQUESTS_PER_CONNECTION,
    maxRequestsInFlight: e.MAX_REQUESTS_IN_FLIGHT,
    maxBodyBytesInFlight: e.MAX_BODY_BYTES_IN_FLIGHT,
    maxUnreadAnswerBytes: e.MAX_UNREAD_ANSWER_BYTES,
  };
});

export const databaseConfig = registerAs('database', () => {
  const e = environment();
  return {
    url: e.DATABASE_URL,
    directUrl: e.DATABASE_DIRECT_URL,
    readUrls: itemsOf(e.DATABASE_READ_URL),
    readMaxLagMs: e.DB_READ_MAX_LAG_MS,
    embeddedDataDir: e.EMBEDDED_DATA_DIR,
    poolSize: e.DB_POOL_SIZE,
    connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
  };
});

export const loggingConfig = registerAs('logging', () => {
  const e = environment();
  return { level: e.LOG_LEVEL, format: e.LOG_FORMAT, zeroSetup: !e.DATABASE_URL };
});

export const authConfig = registerAs('auth', () => ({ adminMasterKey: environment().ADMIN_MASTER_KEY }));

export const rateLimitConfig = registerAs('rateLimits', () => {
  const e = environment();
  return {
    redisUrl: e.REDIS_URL,
    redisPrefix: e.RATE_LIMIT_REDIS_PREFIX,
    redisCommandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
    publicPerMinute: e.RATE_LIMIT_PUBLIC_PER_MINUTE,
    disputePerMinute: e.RATE_LIMIT_DISPUTE_PER_MINUTE,
    changesPerMinute: e.RATE_LIMIT_CHANGES_PER_MINUTE,
    adminPerMinute: e.RATE_LIMIT_ADMIN_PER_MINUTE,
    authFailuresPerMinute: e.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
  };
});

export const changesConfig = registerAs('changes', () => {
  const e = environment();
  return {
    pollIntervalMs: e.CHANGES_POLL_INTERVAL_MS,
    deafAfterMs: e.CHANGES_DEAF_AFTER_MS,
    retentionDays: e.CHANGES_RETENTION_DAYS,
    waitsPerKey: e.CHANGES_WAITS_PER_KEY,
    waitsMax: e.CHANGES_WAITS_MAX,
  };
});

export const publicCacheConfig = registerAs('publicCache', () => {
  const e = environment();
  return { ttlMs: e.PUBLIC_CACHE_TTL_MS, maxEntries: e.PUBLIC_CACHE_MAX_ENTRIES, maxBytes: e.PUBLIC_CACHE_MAX_BYTES };
});

export const webhooksConfig = registerAs('webhooks', () => {
  const e = environment();
  return { workers: e.WEBHOOK_WORKERS, allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS, firstRetrySeconds: e.WEBHOOK_FIRST_RETRY_SECONDS };
});

export const CONFIGURATION = [
  httpConfig,
  edgeConfig,
  databaseConfig,
  loggingConfig,
  authConfig,
  rateLimitConfig,
  changesConfig,
  publicCacheConfig,
  webhooksConfig,
];

export type HttpConfig = ConfigType<typeof httpConfig>;
export type EdgeConfig = ConfigType<typeof edgeConfig>;
export type DatabaseConfig = ConfigType<typeof databaseConfig>;
export type LoggingConfig = ConfigType<typeof loggingConfig>;
export type AuthConfig = ConfigType<typeof authConfig>;
export type RateLimitConfig = ConfigType<typeof rateLimitConfig>;
export type ChangesConfig = ConfigType<typeof changesConfig>;
export type PublicCacheConfig = ConfigType<typeof publicCacheConfig>;
export type WebhooksConfig = ConfigType<typeof webhooksConfig>;
