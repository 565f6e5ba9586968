import type { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis } from 'ioredis';
import { MemoryThrottlerStorage } from './memory-throttler-storage';

type StorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

// One atomic step per hit: count it in a fixed window, and block the tracker once it is over
// the limit. Returns hits, window ms left, blocked (0/1), block ms left.
const INCREMENT_SCRIPT = `
local blockTtl = redis.call('PTTL', KEYS[2])
if blockTtl > 0 then
  return { tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]), 1, blockTtl }
end
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return { hits, ttl, 1, tonumber(ARGV[3]) }
end
return { hits, ttl, 0, 0 }`;

/** After a failure, Redis is left alone this long: while it is down, requests do not each wait for it. */
const BREAK_MS = 1000;

export interface RedisStorageOptions {
  url: string;
  prefix: string;
  commandTimeoutMs: number;
  /** Told of every failure (the metric) and of the outage's start and end (the log). */
  onFailure: (error: Error) => void;
}

// Decided policy when Redis fails: fail open. A command that errs or passes REDIS_COMMAND_TIMEOUT_MS counts in memory
// and Redis rests for BREAK_MS; no offline queue, so no request waits longer or fails because of Redis. Ours because
// the maintained Redis storage for @nestjs/throttler does not support NestJS 12 yet.
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly redis: Redis;
  private readonly fallback = new MemoryThrottlerStorage();
  private skipUntil = 0;

  constructor(private readonly options: RedisStorageOptions) {
    this.redis = new Redis(options.url, {
      lazyConnect: true,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: 2000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 5000),
    });
    this.redis.on('error', (error: Error) => options.onFailure(error));
    this.redis.defineCommand('throttleHit', { numberOfKeys: 2, lua: INCREMENT_SCRIPT });
  }

  /** Before the first request, so instances starting together share counts; without Redis the instance starts anyway. */
  async connect(): Promise<void> {
    await this.redis.connect().catch((error: Error) => this.options.onFailure(error));
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<StorageRecord> {
    if (Date.now() < this.skipUntil) return this.fallback.increment(key, ttl, limit, blockDuration, throttlerName);
    const base = `${this.options.prefix}:throttle:${throttlerName}:${key}`;
    try {
      const [hits, ttlMs, blocked, blockMs] = await (
        this.redis as Redis & { throttleHit(...args: (string | number)[]): Promise<number[]> }
      ).throttleHit(`${base}:hits`, `${base}:blocked`, ttl, limit, blockDuration > 0 ? blockDuration : ttl);
      return {
        totalHits: hits,
        timeToExpire: Math.max(0, Math.ceil(ttlMs / 1000)),
        isBlocked: blocked === 1,
        timeToBlockExpire: Math.max(0, Math.ceil(blockMs / 1000)),
      };
    } catch (error) {
      this.skipUntil = Date.now() + BREAK_MS;
      this.options.onFailure(error as Error);
      return this.fallback.increment(key, ttl, limit, blockDuration, throttlerName);
    }
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
