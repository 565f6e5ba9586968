import { isIP } from 'node:net';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min, ValidateBy } from 'class-validator';
import { isTrustProxySetting } from './trust-proxy';
import { IntVariable, emptyToUndefined, isOrigin, itemsOf, toInt, trimmedOrUndefined } from './variables';

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The variables of the HTTP listeners, their deadlines, proxies, CORS and shutdown. */
export class HttpVariables {
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 1 to 65535' })
  @Min(1, { message: 'must be an integer from 1 to 65535' })
  @Max(65535, { message: 'must be an integer from 1 to 65535' })
  PORT = 3000;

  /** The address both listeners take; unset: loopback in the zero-setup mode, every interface with DATABASE_URL (httpConfig). */
  @Transform(trimmedOrUndefined)
  @IsOptional()
  @ValidateBy({
    name: 'isListenAddress',
    validator: {
      validate: (value) => typeof value === 'string' && (isIP(value) !== 0 || HOST_NAME.test(value)),
      defaultMessage: () => 'must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name of this machine',
    },
  })
  HOST?: string;

  /** The listener of GET /metrics, apart from the public port (0: a port the system chooses, logged). */
  @Transform(toInt)
  @IsInt({ message: 'must be an integer from 0 to 65535' })
  @Min(0, { message: 'must be an integer from 0 to 65535' })
  @Max(65535, { message: 'must be an integer from 0 to 65535' })
  METRICS_PORT = 9464;

  /** How long a client may take to send its request headers. */
  @IntVariable(1000, 300000)
  HTTP_HEADERS_TIMEOUT_MS = 10000;

  /** How long a client may take to send its whole request, body included. */
  @IntVariable(1000, 300000)
  HTTP_REQUEST_TIMEOUT_MS = 15000;

  /** How long an idle keep-alive connection is kept open (behind a load balancer: longer than its idle timeout). */
  @IntVariable(1000, 300000)
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

  /** On SIGTERM, how long to serve as usual (readiness 503) before draining, for load balancers to notice. 0: at once. */
  @IntVariable(0, 120000)
  SHUTDOWN_DELAY_MS = 0;

  /** On SIGTERM, once draining, how long in-flight requests may take before their connections are closed. */
  @IntVariable(0, 120000)
  SHUTDOWN_GRACE_MS = 10000;
}
