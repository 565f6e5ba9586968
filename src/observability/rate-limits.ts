import { ExecutionContext, SetMetadata } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { hashKey } from '../auth/key-hashing';
import type { Environment } from '../config/environment';
import { MemoryThrottlerStorage } from './memory-throttler-storage';
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

function kindOf(context: ExecutionContext): RateLimitKind | undefined {
  return (
    Reflect.getMetadata(RATE_LIMIT, context.getHandler()) ?? Reflect.getMetadata(RATE_LIMIT, context.getClass())
  );
}

function trackerOf(req: Request, kind: RateLimitKind): string {
  if (kind === 'dispute') return disputeTracker(req.header('x-api-key')?.trim() ?? '');
  if (kind === 'admin') return `admin:${hashKey(req.header('authorization') ?? '')}`;
  return publicTracker(req.ip ?? '');
}

/** The public budget's tracker: the client's IP, as Express's `trust proxy` sees it. */
export function publicTracker(ip: string): string {
  return `ip:${ip}`;
}

/** The dispute budget's tracker: the partner's API key, hashed. */
export function disputeTracker(apiKey: string): string {
  return `key:${hashKey(apiKey)}`;
}

/**
 * A tracker's counter for one route: @nestjs/throttler's own key scheme (each route has its own
 * budget), stated here so that the public read's fast path counts into the same counter.
 */
export function rateLimitKey(controller: string, handler: string, throttler: string, tracker: string): string {
  return createHash('sha256').update(`${controller}-${handler}-${throttler}-${tracker}`).digest('hex');
}

/** One throttler whose limit and tracker depend on the route's kind; limits per minute. */
export function rateLimitOptions(config: ConfigService<Environment, true>): ThrottlerModuleOptions {
  const perMinute: Record<RateLimitKind, number> = {
    public: config.get('RATE_LIMIT_PUBLIC_PER_MINUTE', { infer: true }),
    dispute: config.get('RATE_LIMIT_DISPUTE_PER_MINUTE', { infer: true }),
    admin: config.get('RATE_LIMIT_ADMIN_PER_MINUTE', { infer: true }),
  };
  const redisUrl = config.get('REDIS_URL', { infer: true });
  return {
    throttlers: [
      {
        name: 'default',
        ttl: RATE_LIMIT_WINDOW_MS,
        limit: (context) => perMinute[kindOf(context)!],
        skipIf: (context) => kindOf(context) === undefined,
        getTracker: (req, context) => trackerOf(req as Request, kindOf(context)!),
        generateKey: (context, tracker, name) => rateLimitKey(context.getClass().name, context.getHandler().name, name, tracker),
      },
    ],
    storage: redisUrl
      ? new RedisThrottlerStorage(redisUrl, config.get('RATE_LIMIT_REDIS_PREFIX', { infer: true }))
      : new MemoryThrottlerStorage(),
  };
}
