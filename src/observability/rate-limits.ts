import { Logger, SetMetadata } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import { bearerOf } from '../auth/admin.guard';
import { hashKey } from '../auth/key-hashing';
import { clientOf } from '../common/client-address';
import { routeMetadata } from '../common/route-metadata';
import type { Environment } from '../config/environment';
import { MemoryThrottlerStorage } from './memory-throttler-storage';
import { MetricsService } from './metrics.service';
import { RedisThrottlerStorage } from './redis-throttler-storage';

export type RateLimitKind = 'public' | 'dispute' | 'admin';

export const RATE_LIMIT = 'rate-limit:kind';

/**
 * Puts the route under one of the three budgets: `public` per client IP, `dispute` per partner
 * API key, `admin` per admin credential. Routes without it are not limited (health, metrics).
 */
export const RateLimit = (kind: RateLimitKind) => SetMetadata(RATE_LIMIT, kind);

/** Every budget is per minute: a fixed window, and a tracker over its limit waits it out. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

const kindOf = routeMetadata<RateLimitKind>(RATE_LIMIT);

/**
 * The public budget per client IP (as Express's `trust proxy` sees it), the others per credential
 * (hashed) as the guards read it: the header's spelling ("bearer", more spaces) gets no new budget.
 */
function trackerOf(req: Request, kind: RateLimitKind): string {
  if (kind === 'dispute') return `key:${hashKey(req.header('x-api-key')?.trim() ?? '')}`;
  if (kind === 'admin') return `admin:${hashKey(bearerOf(req) ?? req.header('authorization') ?? '')}`;
  return `ip:${clientOf(req)}`;
}

const STORE_FAILURE_LOG_INTERVAL_MS = 60_000;

/** A Redis failure: counted every time, logged at most once a minute. */
function storeFailureReporter(metrics: MetricsService): (error: Error) => void {
  const logger = new Logger('RateLimits');
  let lastLogged = 0;
  return (error) => {
    metrics.rateLimitStoreErrors.inc();
    const now = Date.now();
    if (now - lastLogged < STORE_FAILURE_LOG_INTERVAL_MS) return;
    lastLogged = now;
    logger.warn(`the rate-limit store (Redis) failed: ${error.message}; counting in this instance's memory meanwhile (logged at most once a minute)`);
  };
}

/** One throttler whose limit and tracker depend on the route's kind; limits per minute. */
export async function rateLimitOptions(config: ConfigService<Environment, true>, metrics: MetricsService): Promise<ThrottlerModuleOptions> {
  const perMinute: Record<RateLimitKind, number> = {
    public: config.get('RATE_LIMIT_PUBLIC_PER_MINUTE', { infer: true }),
    dispute: config.get('RATE_LIMIT_DISPUTE_PER_MINUTE', { infer: true }),
    admin: config.get('RATE_LIMIT_ADMIN_PER_MINUTE', { infer: true }),
  };
  const redisUrl = config.get('REDIS_URL', { infer: true });
  const redis = redisUrl
    ? new RedisThrottlerStorage({
        url: redisUrl,
        prefix: config.get('RATE_LIMIT_REDIS_PREFIX', { infer: true }),
        commandTimeoutMs: config.get('REDIS_COMMAND_TIMEOUT_MS', { infer: true }),
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
        skipIf: (context) => kindOf(context) === undefined,
        getTracker: (req, context) => trackerOf(req as Request, kindOf(context)!),
        // One budget per tracker across the routes of its kind (an admin credential's 600 a minute
        // cover every admin route); the tracker is already an IP or a hash, prefixed by its kind.
        generateKey: (_context, tracker, name) => `${name}:${tracker}`,
      },
    ],
    storage: redis ?? new MemoryThrottlerStorage(),
  };
}
