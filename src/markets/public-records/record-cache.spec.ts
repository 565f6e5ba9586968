import { describe, expect, it } from '@jest/globals';
import { type CacheClock, RecordCache } from './record-cache';

/** At most `maxEntries` entries and 1 MB, each value counted as its length. */
const limits = (maxEntries: number, maxBytes = 1_000_000) => ({ maxEntries, maxBytes, sizeOf: (value: string) => value.length });

/** A clock the test moves by hand; `random` fixed so lifetimes are known. */
function manualClock(random = 0): CacheClock & { advance(ms: number): void } {
  let now = 1_000_000;
  return { now: () => now, random: () => random, advance: (ms) => (now += ms) };
}

describe('RecordCache', () => {
  it('serves what a read stored, until it expires', () => {
    const clock = manualClock();
    const cache = new RecordCache<string>(1000, limits(10), clock);
    expect(cache.lookup('a')).toBeUndefined();
    expect(cache.store('a', 'v1', cache.startRead())).toBe(true);
    expect(cache.lookup('a')?.value).toBe('v1');
    clock.advance(999);
    expect(cache.lookup('a')?.value).toBe('v1');
    clock.advance(1);
    expect(cache.lookup('a')).toBeUndefined();
  });

  it('gives each value a lifetime between half the TTL and the TTL, at random', () => {
    const clock = manualClock(0.999);
    const cache = new RecordCache<string>(1000, limits(10), clock);
    cache.store('a', 'v1', cache.startRead());
    clock.advance(500);
    expect(cache.lookup('a')?.value).toBe('v1');
    clock.advance(2);
    expect(cache.lookup('a')).toBeUndefined();
  });

  it('asks for one reload ahead of expiry in the last quarter of a value\'s life', () => {
    const clock = manualClock();
    const cache = new RecordCache<string>(1000, limits(10), clock);
    cache.store('a', 'v1', cache.startRead());
    clock.advance(749);
    expect(cache.lookup('a')?.reloadAhead).toBe(false);
    clock.advance(1);
    expect(cache.lookup('a')).toEqual({ value: 'v1', reloadAhead: true });
    expect(cache.lookup('a')).toEqual({ value: 'v1', reloadAhead: false });
  });

  it('forgets an evicted key, and refuses what a read begun before the eviction got', () => {
    const cache = new RecordCache<string>(1000, limits(10), manualClock());
    cache.store('a', 'v1', cache.startRead());
    const before = cache.startRead();
    cache.evict('a');
    expect(cache.lookup('a')).toBeUndefined();
    expect(cache.store('a', 'stale', before)).toBe(false);
    expect(cache.lookup('a')).toBeUndefined();
    expect(cache.store('a', 'v2', cache.startRead())).toBe(true);
    expect(cache.lookup('a')?.value).toBe('v2');
  });

  it('keeps other keys when one is evicted, and lets reads of them store', () => {
    const cache = new RecordCache<string>(1000, limits(10), manualClock());
    const ticket = cache.startRead();
    cache.evict('a');
    expect(cache.store('b', 'v1', ticket)).toBe(true);
  });

  it('refuses every read begun before a clear', () => {
    const cache = new RecordCache<string>(1000, limits(10), manualClock());
    cache.store('a', 'v1', cache.startRead());
    const before = cache.startRead();
    cache.clear();
    expect(cache.lookup('a')).toBeUndefined();
    expect(cache.store('b', 'v1', before)).toBe(false);
  });

  it('drops the oldest entries beyond its size, and a dropped tombstone still refuses older reads', () => {
    const cache = new RecordCache<string>(1000, limits(2), manualClock());
    const before = cache.startRead();
    cache.evict('a'); // a tombstone, oldest
    cache.store('b', 'v1', cache.startRead());
    cache.store('c', 'v1', cache.startRead()); // pushes the tombstone out
    expect(cache.size).toBe(2);
    expect(cache.store('a', 'stale', before)).toBe(false);
    expect(cache.lookup('b')?.value).toBe('v1');
  });

  it('drops the oldest entries beyond its bytes, never stores a value larger than all of them, and always keeps a tombstone', () => {
    const cache = new RecordCache<string>(1000, limits(100, 10), manualClock());
    // Each entry counts its value's length and two bytes for its one-character key.
    cache.store('a', 'aa', cache.startRead());
    cache.store('b', 'bb', cache.startRead());
    cache.store('c', 'cc', cache.startRead()); // 12 bytes: pushes 'a' out
    expect(cache.lookup('a')).toBeUndefined();
    expect([cache.lookup('b')?.value, cache.lookup('c')?.value]).toEqual(['bb', 'cc']);
    expect(cache.bytes).toBe(8);
    cache.store('d', 'd'.repeat(9), cache.startRead());
    expect(cache.lookup('d')).toBeUndefined();
    const before = cache.startRead();
    cache.evict('b');
    expect(cache.store('b', 'stale', before)).toBe(false);
    expect(cache.bytes).toBe(7);
  });
});
