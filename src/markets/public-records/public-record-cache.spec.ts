import { describe, expect, it } from '@jest/globals';
import { JsonText } from '../../common/json-text';
import { NO_PUBLIC_RECORD, PublicRecordCache } from './public-record-cache';

const clock = { now: () => 1_000_000, random: () => 0 };
const limits = { maxEntries: 10, maxBytes: 1_000_000, sizeOf: (value: JsonText) => value.json.length };
const record = (n: number) => new JsonText(`{"markets":[{"id":${n}}]}`);

describe('PublicRecordCache', () => {
  it('keeps the records of existing markets however many unknown markets are read', () => {
    const cache = new PublicRecordCache(60_000, limits, clock);
    for (let n = 0; n < 10; n++) cache.store(`known ${n}`, record(n), cache.startRead());
    for (let n = 0; n < 1_000; n++) cache.store(`unknown ${n}`, NO_PUBLIC_RECORD, cache.startRead());
    for (let n = 0; n < 10; n++) expect(cache.lookup(`known ${n}`)?.value).toEqual(record(n));
    expect(cache.size.entries).toBe(10);
    // The answers for unknown markets have a fifth of the room: the last two read are still there.
    expect(cache.lookup('unknown 999')?.value).toBe(NO_PUBLIC_RECORD);
    expect(cache.lookup('unknown 998')?.value).toBe(NO_PUBLIC_RECORD);
    expect(cache.lookup('unknown 997')).toBeUndefined();
  });

  it('forgets an unknown market once it changes, and stores no answer read before the change', () => {
    const cache = new PublicRecordCache(60_000, limits, clock);
    cache.store('m', NO_PUBLIC_RECORD, cache.startRead());
    const before = cache.startRead();
    cache.evict('m'); // the market was created
    expect(cache.lookup('m')).toBeUndefined();
    expect(cache.store('m', NO_PUBLIC_RECORD, before)).toBe(false);
    expect(cache.store('m', record(1), before)).toBe(false);
    expect(cache.store('m', record(1), cache.startRead())).toBe(true);
    expect(cache.lookup('m')?.value).toEqual(record(1));
  });

  it('empties both parts when cleared', () => {
    const cache = new PublicRecordCache(60_000, limits, clock);
    const tickets = cache.startRead();
    cache.store('a', record(1), cache.startRead());
    cache.store('b', NO_PUBLIC_RECORD, cache.startRead());
    cache.clear();
    expect([cache.lookup('a'), cache.lookup('b')]).toEqual([undefined, undefined]);
    expect(cache.store('b', NO_PUBLIC_RECORD, tickets)).toBe(false);
  });
});
