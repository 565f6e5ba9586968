import type { ThrottlerStorage } from '@nestjs/throttler';
import { LRUCache } from 'lru-cache';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Window {
  hits: number;
  expiresAt: number;
  blockedUntil: number;
}

// Every client IP, key or admin credential seen in a minute has a window, guesses included. Past this many, the least
// recently counted start over (fail open, as when the store fails): no stream of new trackers can grow the heap.
export const MAX_WINDOWS = 50_000;

// Fixed windows, as RedisThrottlerStorage: O(1) per hit and bounded. @nestjs/throttler's default storage filters
// every hit's timestamp on each request, and keeps every tracker until its window ends.
export class MemoryThrottlerStorage implements ThrottlerStorage {
  private readonly windows: LRUCache<string, Window>;

  constructor(maxWindows = MAX_WINDOWS) {
    this.windows = new LRUCache<string, Window>({ max: maxWindows });
  }

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

  /** Windows held, ended ones included until they are pushed out. */
  get size(): number {
    return this.windows.size;
  }

  private record(window: Window, now: number, blocked: boolean): ThrottlerStorageRecord {
    return {
      totalHits: window.hits,
      timeToExpire: Math.max(0, Math.ceil((window.expiresAt - now) / 1000)),
      isBlocked: blocked,
      timeToBlockExpire: blocked ? Math.max(0, Math.ceil((window.blockedUntil - now) / 1000)) : 0,
    };
  }
}
