import { describe, expect, it } from '@jest/globals';
import { MemoryThrottlerStorage } from './memory-throttler-storage';

describe('MemoryThrottlerStorage', () => {
  const storage = new MemoryThrottlerStorage();

  it('counts hits in a fixed window and blocks past the limit until the window ends', async () => {
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await storage.increment('ip:1', 60_000, 3, 0, 'default'));
    expect(hits.map((hit) => [hit.totalHits, hit.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect(hits[3].timeToBlockExpire).toBe(60);
    expect((await storage.increment('ip:1', 60_000, 3, 0, 'default')).isBlocked).toBe(true);
  });

  it('keeps trackers and throttlers apart', async () => {
    await storage.increment('ip:2', 60_000, 1, 0, 'default');
    expect((await storage.increment('ip:3', 60_000, 1, 0, 'default')).isBlocked).toBe(false);
    expect((await storage.increment('ip:2', 60_000, 1, 0, 'other')).isBlocked).toBe(false);
  });

  it('starts a new window once the old one has passed', async () => {
    await storage.increment('ip:4', 20, 1, 0, 'default');
    expect((await storage.increment('ip:4', 20, 1, 0, 'default')).isBlocked).toBe(true);
    await new Promise((done) => setTimeout(done, 30));
    expect(await storage.increment('ip:4', 20, 1, 0, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('holds at most its bound of windows, dropping the least recently counted', async () => {
    const bounded = new MemoryThrottlerStorage(3);
    for (let i = 0; i < 1_000; i++) {
      await bounded.increment(`key:guess-${i}`, 60_000, 1, 0, 'default');
      expect(bounded.size).toBeLessThanOrEqual(3);
    }
    expect((await bounded.increment('key:guess-999', 60_000, 1, 0, 'default')).isBlocked).toBe(true);
    // Pushed out: counted again from one (fail open).
    expect(await bounded.increment('key:guess-0', 60_000, 1, 0, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
  });
});
