import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpClient, runPool } from './support/http-client';
import { countCodes, expectNo5000, type HostileServer, metricValue, startHostileServer, underAttack } from './support/hostile';

const LARGE_RECORDS = 3_000;
// The longest reasoning the admin API takes, with one character outside Latin-1: V8 then keeps
// the whole text at two bytes a character, so each cached record takes ~20 KB.
const REASONING = '\u2019' + 'x'.repeat(9_999);
const READERS = 4;

/**
 * Public records as large as the admin API lets them be. The record cache counted entries only
 * (5,000), so reading ~2,700 such records once each, without credentials, filled V8's 96 MB heap
 * and the process died; it now also bounds their bytes (PUBLIC_CACHE_MAX_BYTES, 16 MiB).
 */
describe('faults: large public records', () => {
  let h: HostileServer;

  beforeAll(async () => {
    h = await startHostileServer({ name: 'records-server' });
    await h.dataSource.query(
      `INSERT INTO markets (source, slug, status, verdict, confidence, reasoning, resolved_at)
       SELECT $1, 'large-' || n, 'resolved', 'YES', 'HIGH', $2, now() FROM generate_series(1, $3::int) AS n`,
      [h.cached.source, REASONING, LARGE_RECORDS],
    );
  });

  afterAll(async () => {
    await h?.stop();
  });

  it(`stays within its memory while ${LARGE_RECORDS} records of 10,000-character reasoning are each read once, anonymously`, async () => {
    const s = h.server;
    const readers = h.track(...Array.from({ length: READERS }, () => new HttpClient(s.http.baseUrl, '127.0.0.61')));
    const reads = Array.from({ length: LARGE_RECORDS }, (_, n) => () =>
      readers[n % READERS].request('GET', `/oracle/markets/public?slug=large-${n + 1}&source=${h.cached.source}`),
    );
    const attack = await underAttack(s, h.innocent, () => runPool(reads, READERS));
    const answers = attack.outcome;
    expect(answers.filter((answer) => answer.body?.code !== 0 || answer.body.data.markets[0].reasoning !== REASONING)).toEqual([]);
    // What the cache keeps is bounded by its bytes: far fewer than 5,000 such records.
    const cached = { entries: await metricValue(s, 'oracle_public_cache_size', { unit: 'entries' }), bytes: await metricValue(s, 'oracle_public_cache_size', { unit: 'bytes' }) };
    expect(cached.bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(cached.entries).toBeLessThan(1_000);
    await expectNo5000(s);
    console.log(
      [
        `${LARGE_RECORDS} records of ${REASONING.length}-character reasoning, each read once by ${READERS} anonymous connections:`,
        `  ${attack.summary}; cached afterwards: ${cached.entries} records, ${(cached.bytes / 1024 / 1024).toFixed(1)} MB (estimated)`,
        `  the reads: ${countCodes(answers.map((answer) => answer.body ?? {}))}`,
      ].join('\n'),
    );
  });
});
