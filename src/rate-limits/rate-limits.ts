import { type ExecutionContext, Logger, SetMetadata } from '@nestjs/common';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import { clientOf } from '../common/client-address';
import type { ServiceRequest } from '../common/request-context';
import { routeMetadata } from '../common/route-metadata';
import type { RateLimitConfig } from '../config/configuration';
import { MemoryThrottlerStorage } from './memory-throttler-storage';
import { MetricsService } from '../observability/metrics.service';
import { throttledWarning } from '../observability/throttled-warning';
import { RedisThrottlerStorage } from './redis-throttler-storage';

export type RateLimitKind = 'public' | 'dispute' | 'changes' | 'admin';

export const RATE_LIMIT = 'rate-limit:kind';

/** `public` per client IP, `dispute` and `changes` per partner API key, `admin` per admin credential; none: unlimited. */
export const RateLimit = (kind: RateLimitKind) => SetMetadata(RATE_LIMIT, kind);

/** Every budget is per minute: a fixed window, and a tracker over its limit waits it out. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

const kindOf = routeMetadata<RateLimitKind>(RATE_LIMIT);

/** `public` per client IP (as `trust proxy` sees it); the others per credential hash, read once by ApiKeyGuard or AdminGuard (CredentialGate). */
function trackerOf(req: ServiceRequest, kind: RateLimitKind): string {
  if (kind === 'public') return `ip:${clientOf(req)}`;
  return `${kind === 'admin' ? 'admin' : kind === 'dispute' ? 'key' : 'feed'}:${req.context.credential!.hash}`;
}

/** Nor for requests lacking the credential their route needs: their guard answers them 4010 or 4012 without a lookup. */
function exempt(context: ExecutionContext): boolean {
  const kind = kindOf(context);
  return kind === undefined || (kind !== 'public' && context.switchToHttp().getRequest<ServiceRequest>().context.credential === undefined);
}

/** A Redis failure: counted every time, logged at most once a minute. */
function storeFailureReporter(metrics: MetricsService): (error: Error) => void {
  const warn = throttledWarning(new Logger('RateLimits'));
  return (error) => {
    metrics.rateLimitStoreErrors.inc();
    warn(`the rate-limit store (Redis) failed: ${error.message}; counting in this instance's memory meanwhile`);
  };
}

/** One throttler whose limit and tracker depend on the route's kind; limits per minute. */
export async function rateLimitOptions(config: RateLimitConfig, metrics: MetricsService): Promise<ThrottlerModuleOptions> {
  const perMinute: Record<RateLimitKind, number> = {
    public: config.publicPerMinute,
    dispute: config.disputePerMinute,
    changes: config.changesPerMinute,
    admin: config.adminPerMinute,
  };
  const redisUrl = config.redisUrl;
  const redis = redisUrl
    ? new RedisThrottlerStorage({
        url: redisUrl,
        prefix: config.redisPrefix,
        commandTimeoutMs: config.redisCommandTimeoutMs,
        onFailure: storeFailureReporter(metrics),
      })
    : undefined;
  await redis?.connect();
  return {
    throttlers: [
      {
        name: 'default',
        ttl: RATE_LIMIT_WINDOW_MS,
        limit: (context) => perMinute[kindOf(context)!],
        skipIf: exempt,
        getTracker: (req, context) => trackerOf(req as ServiceRequest, kindOf(context)!),
        // One budget per tracker across the routes of its kind (an admin credential's 600 a minute
        // cover every admin route); the tracker is already an IP or a hash, prefixed by its kind.
        generateKey: (_context, tracker, name) => `${name}:${tracker}`,
      },
    ],
    storage: redis ?? new MemoryThrottlerStorage(),
  };
}
