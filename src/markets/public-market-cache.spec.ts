import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { ConfigService } from '@nestjs/config';
import type { Environment } from '../config/environment';
import type { DatabaseLocation } from '../database/database.module';
import type { MetricsService } from '../observability/metrics.service';
import { JsonText } from '../common/json-text';
import { PublicMarketCache } from './public-market-cache';

function cacheWith(settings: { ttlMs?: number; maxEntries?: number } = {}) {
  const values: Record<string, number> = {
    PUBLIC_CACHE_TTL_MS: settings.ttlMs ?? 60_000,
    PUBLIC_CACHE_MAX_ENTRIES: settings.maxEntries ?? 100,
  };
  const config = { get: (name: string) => values[name] } as unknown as ConfigService<Environment, true>;
  const metrics = {
    publicCache: { labels: () => ({ inc: () => undefined }) },
    publicCacheReloads: { inc: () => undefined },
  } as unknown as MetricsService;
  const cache = new PublicMarketCache(config, { url: 'unused', embedded: null } as DatabaseLocation, metrics);
  // As if the change listener were connected (the e2e suite covers the real one).
  (cache as unknown as { listening: boolean }).listening = true;
  return cache;
}

/** A loader that counts its calls and answers with the current version of the record. */
function recordSource() {
  const source = {
    version: 1,
    loads: 0,
    load: async (): Promise<JsonText> => {
      source.loads++;
      return new JsonText(`v${source.version}`);
    },
  };
  return source;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('PublicMarketCache', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('answers repeated reads of a key from one load', async () => {
    const cache = cacheWith();
    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    const again = await cache.get('acme', 'm', record.load);
    expect(record.loads).toBe(1);
    expect(again.json).toBe('v1');
  });

  it('loads afresh after an eviction', async () => {
    const cache = cacheWith();
    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    record.version = 2;
    cache.evict('acme', 'm');
    expect((await cache.get('acme', 'm', record.load)).json).toBe('v2');
  });

  it('does not store what a read started before an eviction returned', async () => {
    const cache = cacheWith();
    const slow = deferred<JsonText>();
    const inFlight = cache.get('acme', 'm', () => slow.promise);
    cache.evict('acme', 'm'); // the write commits while the read is under way
    slow.resolve(new JsonText('old'));
    expect((await inFlight).json).toBe('old'); // that reader asked before the write

    const record = recordSource();
    record.version = 2;
    expect((await cache.get('acme', 'm', record.load)).json).toBe('v2');
    expect(record.loads).toBe(1);
  });

  it('does not store a read that spanned a loss of the change listener', async () => {
    const cache = cacheWith();
    const slow = deferred<JsonText>();
    const inFlight = cache.get('acme', 'm', () => slow.promise);
    (cache as unknown as { stopServing(): void }).stopServing();
    (cache as unknown as { listening: boolean }).listening = true; // listening again
    slow.resolve(new JsonText('old'));
    await inFlight;

    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    expect(record.loads).toBe(1);
  });

  it('shares one load between concurrent misses of a key', async () => {
    const cache = cacheWith();
    const record = recordSource();
    await Promise.all([1, 2, 3].map(() => cache.get('acme', 'm', record.load)));
    expect(record.loads).toBe(1);
  });

  it('keeps other keys apart, including slugs that differ only by source', async () => {
    const cache = cacheWith();
    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    await cache.get('globex', 'm', record.load);
    await cache.get('acme', 'm2', record.load);
    expect(record.loads).toBe(3);
  });

  it('serves nothing from the cache while it cannot hear changes', async () => {
    const cache = cacheWith();
    (cache as unknown as { listening: boolean }).listening = false;
    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    await cache.get('acme', 'm', record.load);
    expect(record.loads).toBe(2);
  });

  it('peeks at what it would serve, without loading: nothing before a load, after an eviction, or while deaf', async () => {
    const cache = cacheWith();
    const record = recordSource();
    expect(cache.peek('acme', 'm', record.load)).toBeUndefined();
    await cache.get('acme', 'm', record.load);
    expect(cache.peek('acme', 'm', record.load)?.json).toBe('v1');
    expect(cache.peek('other', 'm', record.load)).toBeUndefined();
    cache.evict('acme', 'm');
    expect(cache.peek('acme', 'm', record.load)).toBeUndefined();
    await cache.get('acme', 'm', record.load);
    (cache as unknown as { listening: boolean }).listening = false;
    expect(cache.peek('acme', 'm', record.load)).toBeUndefined();
    expect(record.loads).toBe(2);
  });

  /** Date.now() under the test's control, from `start`. */
  const clock = (start = 1_000_000) => {
    let now = start;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    return { advance: (ms: number) => (now += ms) };
  };

  it('reloads a record polled in the last quarter of its life, serving it meanwhile, once', async () => {
    const time = clock();
    jest.spyOn(Math, 'random').mockReturnValue(0); // a lifetime of the whole TTL: reload from 150 ms
    const cache = cacheWith({ ttlMs: 200 });
    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    time.advance(149);
    expect(cache.peek('acme', 'm', record.load)?.json).toBe('v1');
    expect(record.loads).toBe(1); // not yet in its last quarter: no reload

    time.advance(11);
    record.version = 2;
    const slow = deferred<JsonText>();
    const reload = () => {
      record.loads++;
      return slow.promise;
    };
    expect(cache.has('acme', 'm')).toBe(true);
    expect(record.loads).toBe(1); // has() starts nothing
    const served = [cache.peek('acme', 'm', reload), cache.peek('acme', 'm', reload)];
    expect(record.loads).toBe(2); // one reload for both
    expect(served.map((answer) => answer?.json)).toEqual(['v1', 'v1']);
    slow.resolve(new JsonText('v2'));
    await sleep(0);
    expect(cache.peek('acme', 'm', record.load)?.json).toBe('v2');
    time.advance(199); // the reloaded record lives its own lifetime
    expect(cache.peek('acme', 'm', record.load)?.json).toBe('v2');
    time.advance(1);
    expect(cache.peek('acme', 'm', record.load)).toBeUndefined();
  });

  /** A record cached for the whole TTL (200 ms) and now 160 ms old: in the last quarter of its life. */
  const recordInItsLastQuarter = async () => {
    const time = clock();
    jest.spyOn(Math, 'random').mockReturnValue(0);
    const cache = cacheWith({ ttlMs: 200 });
    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    time.advance(160);
    return { time, cache, record };
  };

  it('tries a reload once: a failed one lets the record expire as it would have', async () => {
    const { time, cache } = await recordInItsLastQuarter();
    let attempts = 0;
    const failing = () => {
      attempts++;
      return Promise.reject(new Error('database down'));
    };
    expect(cache.peek('acme', 'm', failing)?.json).toBe('v1');
    await sleep(0);
    expect(cache.peek('acme', 'm', failing)?.json).toBe('v1');
    expect(attempts).toBe(1);
    time.advance(40);
    expect(cache.peek('acme', 'm', failing)).toBeUndefined();
  });

  it('does not store a reload that an eviction overtook', async () => {
    const { cache, record } = await recordInItsLastQuarter();
    const slow = deferred<JsonText>();
    expect(cache.peek('acme', 'm', () => slow.promise)?.json).toBe('v1'); // starts the reload
    cache.evict('acme', 'm'); // the write commits while the reload is under way
    slow.resolve(new JsonText('old'));
    await sleep(0);
    expect(cache.peek('acme', 'm', record.load)).toBeUndefined();
    record.version = 2;
    expect((await cache.get('acme', 'm', record.load)).json).toBe('v2');
  });

  it('gives each record a lifetime between half the TTL and the TTL', async () => {
    const time = clock();
    const cache = cacheWith({ ttlMs: 200 });
    const record = recordSource();
    jest.spyOn(Math, 'random').mockReturnValue(0.9999); // the shortest lifetime
    await cache.get('acme', 'short', record.load);
    jest.spyOn(Math, 'random').mockReturnValue(0); // the longest
    await cache.get('acme', 'long', record.load);
    time.advance(100);
    expect([cache.has('acme', 'short'), cache.has('acme', 'long')]).toEqual([true, true]);
    time.advance(1);
    expect([cache.has('acme', 'short'), cache.has('acme', 'long')]).toEqual([false, true]);
    time.advance(99);
    expect(cache.has('acme', 'long')).toBe(false);
  });

  it('is off with a TTL of 0', async () => {
    const cache = cacheWith({ ttlMs: 0 });
    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    await cache.get('acme', 'm', record.load);
    expect(record.loads).toBe(2);
  });

  it('expires entries after the TTL', async () => {
    const cache = cacheWith({ ttlMs: 20 });
    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    await new Promise((done) => setTimeout(done, 30));
    await cache.get('acme', 'm', record.load);
    expect(record.loads).toBe(2);
  });

  it('holds at most PUBLIC_CACHE_MAX_ENTRIES keys, dropping the oldest', async () => {
    const cache = cacheWith({ maxEntries: 2 });
    const record = recordSource();
    for (const slug of ['a', 'b', 'c']) await cache.get('acme', slug, record.load);
    await cache.get('acme', 'c', record.load);
    expect(record.loads).toBe(3);
    await cache.get('acme', 'a', record.load);
    expect(record.loads).toBe(4);
  });

  it('does not store a read whose key was evicted and then dropped to make room', async () => {
    const cache = cacheWith({ maxEntries: 1 });
    const slow = deferred<JsonText>();
    const inFlight = cache.get('acme', 'm', () => slow.promise);
    cache.evict('acme', 'm');
    cache.evict('acme', 'other'); // pushes m's tombstone out
    slow.resolve(new JsonText('old'));
    await inFlight;

    const record = recordSource();
    await cache.get('acme', 'm', record.load);
    expect(record.loads).toBe(1);
  });
});
