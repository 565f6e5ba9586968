import { plainToInstance, Transform } from 'class-transformer';
import { getHeapStatistics } from 'node:v8';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy, validateSync } from 'class-validator';
import { StartupError } from './startup-error';
import { isTrustProxySetting } from './trust-proxy';

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
const toBoolean = ({ value }: { value: unknown }) =>
  typeof value === 'string' && ['true', 'false'].includes(value.trim()) ? value.trim() === 'true' : value;
const emptyToUndefined = ({ value }: { value: unknown }) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const trimmedOrUndefined = ({ value }: { value: unknown }) =>
  typeof value === 'string' ? value.trim() || undefined : value;

/** The items of a comma-separated setting, trimmed, empty ones dropped. */
export const itemsOf = (list: string | undefined): string[] =>
  (list ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');

/** An origin as a browser's Origin header carries it (scheme, host, port only): the only form CORS can match. */
const isOrigin = (text: string) => URL.canParse(text) && new URL(text).origin === text;

/** Every variable the service reads (defaults as in the README), validated whole: one line names every bad value. */
export class Environment {
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1 to 65535' })
  @Min(1, { message: 'must be an integer from 1 to 65535' })
  @Max(65535, { message: 'must be an integer from 1 to 65535' })
  PORT = 3000;

  /** The listener of GET /metrics, apart from the public port (0: a port the system chooses, logged). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 0 to 65535' })
  @Min(0, { message: 'must be an integer from 0 to 65535' })
  @Max(65535, { message: 'must be an integer from 0 to 65535' })
  METRICS_PORT = 9464;

  /** Unset: the service's own PostgreSQL. Set but empty is refused: read as unset, it would serve an empty database. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL (unset it for the service\'s own PostgreSQL)' })
  DATABASE_URL?: string;

  /** Session connection for the migrations, whose lock a transaction pooler breaks (default DATABASE_URL); its role may own the schema while DATABASE_URL's has only the grants of docs/operations.md. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// or postgresql:// URL' })
  DATABASE_DIRECT_URL?: string;

  /** Streaming replicas for what only reads (public record misses, the changes feed, admin listings), comma-separated. */
  @IsOptional()
  @ValidateBy({
    name: 'isPostgresUrlList',
    validator: {
      validate: (value) => typeof value === 'string' && itemsOf(value).length > 0 && itemsOf(value).every((url) => /^postgres(ql)?:\/\/\S+$/.test(url)),
      defaultMessage: () => 'must be one or more postgres:// URLs, comma-separated',
    },
  })
  DATABASE_READ_URL?: string;

  /** A replica further behind the primary than this is skipped for the primary. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(600000)
  DB_READ_MAX_LAG_MS = 1000;

  @IsString()
  @MinLength(1)
  EMBEDDED_DATA_DIR = './data';

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE = 10;

  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60000)
  DB_CONNECT_TIMEOUT_MS = 1500;

  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600000)
  DB_STATEMENT_TIMEOUT_MS = 2000;

  /** Sent as a Bearer token: taken trimmed (a secret file's newline); what a header cannot carry is refused at start. */
  @Transform(trimmedOrUndefined)
  @IsOptional()
  @IsString()
  @MinLength(24, { message: 'must be at least 24 characters' })
  @Matches(/^[\x21-\x7e]*$/, { message: 'must be printable ASCII without spaces (it is sent as a Bearer token)' })
  ADMIN_MASTER_KEY?: string;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** json: one JSON object a line; pretty: for a person; auto: pretty in the zero-setup mode on a terminal, else json. */
  @IsIn(['auto', 'json', 'pretty'])
  LOG_FORMAT = 'auto';

  /** Shared rate-limit counts; unset: per instance. Set but empty is refused: each instance would allow the whole budget. */
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL (unset it for counts per instance)' })
  REDIS_URL?: string;

  /** Namespace of the rate-limit keys in Redis (instances sharing a budget share it). */
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1-64 letters, digits, ":", "_" or "-"' })
  RATE_LIMIT_REDIS_PREFIX = 'oracle';

  /** How long a cached public record may be served; the safety net behind eviction on change. 0: no cache. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60000)
  PUBLIC_CACHE_TTL_MS = 30000;

  /** How often each instance reads the change log: a write on another instance waits up to about this before its answer. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(10000)
  CHANGES_POLL_INTERVAL_MS = 25;

  /** A change log read that long ago, or an event that long without its sequence: the public record cache is bypassed. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60000)
  CHANGES_DEAF_AFTER_MS = 1000;

  /** Events are kept at least this many days; an older changes cursor gets 4102. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  CHANGES_RETENTION_DAYS = 90;

  /** Long polls of the changes feed held at once for one API key; beyond, 4290. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  CHANGES_WAITS_PER_KEY = 10;

  /** Long polls of the changes feed held at once by the instance; beyond, 4290. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  CHANGES_WAITS_MAX = 1000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000000)
  PUBLIC_CACHE_MAX_ENTRIES = 5000;

  /** Memory the cached public records may take (estimated: 2 bytes per character of their JSON). */
  @Transform(toInt)
  @IsInt()
  @Min(1048576)
  @Max(1073741824)
  PUBLIC_CACHE_MAX_BYTES = 16777216;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PUBLIC_PER_MINUTE = 6000;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_DISPUTE_PER_MINUTE = 300;

  /** Changes feed reads per API key (a long poll counts once). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_CHANGES_PER_MINUTE = 600;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_ADMIN_PER_MINUTE = 600;

  /** Failed authentications (4011, 4012) per client IP and minute; past it, 4290 before any lookup. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE = 30;

  /** How long a rate-limit command may take in Redis before the instance counts in memory instead. */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(10000)
  REDIS_COMMAND_TIMEOUT_MS = 200;

  /** Requests in progress on one connection (pipelined); beyond it, 4290 and the connection closes. Below DB_POOL_SIZE. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  MAX_REQUESTS_PER_CONNECTION = 8;

  /** Requests in progress in this process once their bodies are read; beyond it, 5031 "server busy". */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  MAX_REQUESTS_IN_FLIGHT = 256;

  /** Bytes of request bodies (by declared length) held in this process at once; beyond it, 5031 "server busy". */
  @Transform(toInt)
  @IsInt()
  @Min(65536)
  @Max(1073741824)
  MAX_BODY_BYTES_IN_FLIGHT = 8388608;

  /** Bytes of answers written and not yet taken by their connections; beyond it, 5031 (4290 for an address past a quarter). */
  @Transform(toInt)
  @IsInt()
  @Min(1048576)
  @Max(1073741824)
  MAX_UNREAD_ANSWER_BYTES = 8388608;

  /** How long a client may take to send its request headers. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(300000)
  HTTP_HEADERS_TIMEOUT_MS = 10000;

  /** How long a client may take to send its whole request, body included. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(300000)
  HTTP_REQUEST_TIMEOUT_MS = 15000;

  /** How long an idle keep-alive connection is kept open (behind a load balancer: longer than its idle timeout). */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(300000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 5000;

  /** Express "trust proxy": false, a hop count, or a comma-separated list of addresses, subnets and named ranges (never true). */
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value) => typeof value === 'string' && isTrustProxySetting(value),
      defaultMessage: (args) =>
        args?.value === 'true'
          ? 'true would let any client choose its own address (the left-most X-Forwarded-For entry): give the number of proxies in front of the service, or their addresses'
          : 'must be false, a hop count, or a comma-separated list of IP addresses, subnets (10.0.0.0/8) and loopback, linklocal or uniquelocal',
    },
  })
  TRUST_PROXY = 'false';

  /** Comma-separated origins allowed by CORS; unset: CORS off. */
  @Transform(emptyToUndefined)
  @IsOptional()
  @ValidateBy({
    name: 'isOriginList',
    validator: {
      validate: (value) => typeof value === 'string' && itemsOf(value).every(isOrigin),
      defaultMessage: () =>
        'must be comma-separated origins as browsers send them, such as https://app.example.com or http://localhost:8080 (no path, no trailing slash, no default port)',
    },
  })
  CORS_ORIGINS?: string;

  /** Webhook deliveries this instance runs at once; 0: it sends none (API-only instances), others do. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100)
  WEBHOOK_WORKERS = 4;

  /** true: webhook URLs may be http:// and reach private and loopback addresses (local development and tests only). */
  @Transform(toBoolean)
  @IsBoolean({ message: 'must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_URLS = false;

  /** Test-only: the first retry delay of a failed webhook delivery, in seconds (the schedule doubles it from there). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(12)
  WEBHOOK_FIRST_RETRY_SECONDS = 12;

  /** On SIGTERM, how long to serve as usual (readiness 503) before draining, for load balancers to notice. 0: at once. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(120000)
  SHUTDOWN_DELAY_MS = 0;

  /** On SIGTERM, once draining, how long in-flight requests may take before their connections are closed. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(120000)
  SHUTDOWN_GRACE_MS = 10000;
}

/** Variables whose values are never shown, even refused: they may carry a password or a key. */
const SECRETS = new Set(['DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_READ_URL', 'ADMIN_MASTER_KEY', 'REDIS_URL']);

/** Validates `process.env`; throws a StartupError, one line naming every bad variable. */
export function validateEnvironment(raw: Record<string, unknown>): Environment {
  const environment = plainToInstance(Environment, raw, { exposeDefaultValues: true });
  const errors = validateSync(environment, { whitelist: false });
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
