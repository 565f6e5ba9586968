import { Logger, SetMetadata } from '@nestjs/common';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
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

/** The route's kind (handler, else controller), for its limit and RateLimitGuard's hooks. */
export const rateLimitKindOf = routeMetadata<RateLimitKind>(RATE_LIMIT);

/** A Redis failure: counted every time, logged at most once a minute. */
function storeFailureReporter(metrics: MetricsService): (error: Error) => void {
  const warn = throttledWarning(new Logger('RateLimits'));
  return (error) => {
    metrics.rateLimitStoreErrors.inc();
    warn(`the rate-limit store (Redis) failed: ${error.message}; counting in this instance's memory meanwhile`);
  };
}

/** One throttler whose limit depends on the route's kind; limits per minute. RateLimitGuard's hooks skip, track and key. */
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
        limit: (context) => perMinute[rateLimitKindOf(context)!],
      },
    ],
    storage: redis ?? new MemoryThrottlerStorage(),
  };
}
