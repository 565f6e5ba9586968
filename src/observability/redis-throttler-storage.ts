import type { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface.js';
import { Redis } from 'ioredis';

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

/**
 * Rate-limit counters in Redis, so every instance shares one budget per tracker.
 * (The maintained Redis storage for @nestjs/throttler does not support NestJS 12 yet; this
 * is its one operation, as a Lua script.)
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: true });
    this.redis.defineCommand('throttleHit', { numberOfKeys: 2, lua: INCREMENT_SCRIPT });
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const base = `${this.prefix}:throttle:${throttlerName}:${key}`;
    const [hits, ttlMs, blocked, blockMs] = (await (
      this.redis as Redis & { throttleHit(...args: (string | number)[]): Promise<number[]> }
    ).throttleHit(`${base}:hits`, `${base}:blocked`, ttl, limit, blockDuration > 0 ? blockDuration : ttl)) as number[];
    return {
      totalHits: hits,
      timeToExpire: Math.max(0, Math.ceil(ttlMs / 1000)),
      isBlocked: blocked === 1,
      timeToBlockExpire: Math.max(0, Math.ceil(blockMs / 1000)),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
  }
}
