import { describe, expect, it } from '@jest/globals';
import type { ChangeListener, ChangeLog } from '../../changes/change-log';
import { JsonText } from '../../common/json-text';
import type { MetricsService } from '../../observability/metrics.service';
import { PublicRecords } from './public-records';

/** PublicRecords over a stand-in change log the test drives (the e2e suites run the real one). */
function recordsWith(ttlMs = 60_000) {
  const config = { ttlMs, maxEntries: 100, maxBytes: 1_048_576 };
  const counter = { inc: () => undefined };
  const metrics = { publicCache: { labels: () => counter }, publicCacheReloads: counter, measurePublicCache: () => undefined } as unknown as MetricsService;
  let listener!: ChangeListener;
  const changes = { live: true, cacheUsable: () => changes.live, subscribe: (subscriber: ChangeListener) => (listener = subscriber) };
  const records = new PublicRecords(config, changes as unknown as ChangeLog, metrics);
  return { records, changes, hear: () => listener };
}

/** A loader that counts its calls and answers with the record's current version. */
function recordSource() {
  const source = { version: 1, loads: 0, load: async () => (source.loads++, new JsonText(`v${source.version}`)) };
  return source;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('PublicRecords', () => {
  it('answers repeated reads from one load, and concurrent misses share it', async () => {
    const { records } = recordsWith();
    const record = recordSource();
    const [a, b] = await Promise.all([records.get('acme', 'm', record.load), records.get('acme', 'm', record.load)]);
    expect((await records.get('acme', 'm', record.load)).json).toBe('v1');
    expect([a.json, b.json, record.loads]).toEqual(['v1', 'v1', 1]);
  });

  it('loads afresh once a change is read, and does not store a read that began before it', async () => {
    const { records, hear } = recordsWith();
    const slow = deferred<JsonText>();
    const before = records.get('acme', 'm', () => slow.promise);
    hear().changed('acme', 'm');
    slow.resolve(new JsonText('old'));
    expect((await before).json).toBe('old'); // that reader asked before the change
    const record = recordSource();
    record.version = 2;
    expect((await records.get('acme', 'm', record.load)).json).toBe('v2');
    expect((await records.get('acme', 'm', record.load)).json).toBe('v2');
    expect(record.loads).toBe(1);
  });

  it('goes to the database for every read while the change log is not live, and caches again once it is', async () => {
    const { records, changes } = recordsWith();
    const record = recordSource();
    await records.get('acme', 'm', record.load);
    changes.live = false;
    await records.get('acme', 'm', record.load);
    await records.get('acme', 'm', record.load);
    expect(record.loads).toBe(3);
    changes.live = true;
    await records.get('acme', 'm', record.load);
    expect(record.loads).toBe(3); // the entry read while live is still the record: no change was read since
  });

  it('caches nothing when its TTL is 0', async () => {
    const { records } = recordsWith(0);
    const record = recordSource();
    await records.get('acme', 'm', record.load);
    await records.get('acme', 'm', record.load);
    expect(record.loads).toBe(2);
  });
});
