import type { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Window {
  hits: number;
  expiresAt: number;
  blockedUntil: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Rate-limit counters in this process: fixed windows, the same rule as RedisThrottlerStorage.
 * Replaces @nestjs/throttler's default storage, which keeps every hit's timestamp and filters
 * the whole list on each request: at a partner's polling rate that was the public read's
 * largest cost in the profile (docs/benchmarks.md). This is O(1) per hit.
 */
export class MemoryThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const id = `${throttlerName}:${key}`;
    const now = Date.now();
    let window = this.windows.get(id);
    if (window && window.blockedUntil > now) return this.record(window, now, true);
    if (!window || window.expiresAt <= now) {
      window = { hits: 0, expiresAt: now + ttl, blockedUntil: 0 };
      this.windows.set(id, window);
    }
    window.hits++;
    if (window.hits > limit) {
      window.blockedUntil = now + (blockDuration > 0 ? blockDuration : ttl);
      return this.record(window, now, true);
    }
    return this.record(window, now, false);
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private record(window: Window, now: number, blocked: boolean): ThrottlerStorageRecord {
    return {
      totalHits: window.hits,
      timeToExpire: Math.max(0, Math.ceil((window.expiresAt - now) / 1000)),
      isBlocked: blocked,
      timeToBlockExpire: blocked ? Math.max(0, Math.ceil((window.blockedUntil - now) / 1000)) : 0,
    };
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, window] of this.windows) {
      if (window.expiresAt <= now && window.blockedUntil <= now) this.windows.delete(id);
    }
  }
}
