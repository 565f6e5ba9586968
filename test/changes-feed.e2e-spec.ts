import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Fixtures } from './support/fixtures';
import { fixturesOf, NO_RATE_LIMITS, startTestApp, startTestAppOn, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
type Json = Record<string, any>;

const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });

/**
 * The changes feed (contract §7) on two instances of one database: a partner's own events in
 * ascending sequence, each carrying the record as get_public_market returned it right after;
 * long polls; retention; and the guarantee that no reader ever skips an event, whatever the
 * writers and however their commits interleave.
 */
describe('the changes feed', () => {
  let a: TestApp;
  let b: TestApp;
  let fixtures: Fixtures;
  let acme: { source: string; apiKey: string };
  let globex: { source: string; apiKey: string };

  beforeAll(async () => {
    a = await startTestApp({ ADMIN_MASTER_KEY: MASTER, ...NO_RATE_LIMITS, CHANGES_WAITS_PER_KEY: '3' });
    b = await startTestAppOn(a.databaseUrl);
    fixtures = fixturesOf(a);
    acme = await fixtures.partner('acme');
    globex = await fixtures.partner('globex');
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const feed = (app: TestApp, apiKey: string, query: Record<string, unknown> = {}) =>
    app.http.get('/oracle/markets/changes').set('x-api-key', apiKey).query(query);
  const admin = (app: TestApp, path: string, body: object) => app.http.post(path).set('authorization', `Bearer ${MASTER}`).send(body);
  const publicRecord = async (app: TestApp, source: string, slug: string) =>
    (await app.http.get('/oracle/markets/public').query({ slug, source })).body.data.markets[0];
  const headOf = async () => Number((await a.dataSource.query('SELECT last_sequence FROM change_log_head'))[0].last_sequence);
  const file = (app: TestApp, apiKey: string, marketId: number) =>
    app.http.post('/oracle/markets/dispute/submit').set('x-api-key', apiKey).send({
      market_id: marketId,
      submitter_id: 'u-1',
      submitter_name: 'Ada',
      submitter_selection: 'NO',
      reason_text: 'The source was corrected.',
    });

  it('tells a partner every change of its markets, in order, each with the record as it was right after', async () => {
    const after = await headOf();
    const records: Json[] = [];
    const created = await admin(a, '/admin/markets', { source: 'acme', slug: 'feed-lifecycle' });
    records.push(await publicRecord(a, 'acme', 'feed-lifecycle'));
    await admin(b, `/admin/markets/${created.body.data.id}/resolve`, {
      verdict: 'YES',
      confidence: 'HIGH',
      reasoning: 'Confirmed.',
      proofs: [{ chain: 'base', tx_hash: '0xabc' }],
    });
    records.push(await publicRecord(b, 'acme', 'feed-lifecycle'));
    const filed = await file(a, acme.apiKey, created.body.data.id);
    records.push(await publicRecord(a, 'acme', 'feed-lifecycle'));
    await admin(b, `/admin/disputes/${filed.body.data.dispute_id}/decision`, { type: 'override', reason_text: 'Corrected.' });
    records.push(await publicRecord(b, 'acme', 'feed-lifecycle'));
    // Another partner's market changes meanwhile: not in acme's feed.
    await admin(a, '/admin/markets', { source: 'globex', slug: 'not-acme' });

    const answer = await feed(b, acme.apiKey, { after });
    const changes = answer.body.data.changes as Json[];
    expect(changes.map((change) => change.type)).toEqual(['market.created', 'market.resolved', 'dispute.filed', 'dispute.decided']);
    expect(changes.map((change) => change.market)).toEqual(records);
    for (const [i, change] of changes.entries()) {
      expect(change).toEqual({ id: `evt_${change.sequence}`, sequence: expect.any(Number), type: change.type, occurred_at: expect.stringMatching(/Z$/), market: records[i] });
      if (i > 0) expect(change.sequence).toBeGreaterThan(changes[i - 1].sequence);
    }
    expect(answer.body).toEqual(ok({ changes, next_after: changes[3].sequence }));
    const globexFeed = (await feed(a, globex.apiKey, { after })).body.data.changes as Json[];
    expect(globexFeed.map((change) => [change.type, change.market.slug])).toEqual([['market.created', 'not-acme']]);
  });

  it("has a write's event once the write is answered, on either instance, though the other polls (and sequences) all the while", async () => {
    const missed: string[] = [];
    for (let round = 0; round < 40; round++) {
      const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
      const after = await headOf();
      const slug = `answered-${round}`;
      expect((await admin(writer, '/admin/markets', { source: 'globex', slug })).body.code).toBe(0);
      const changes = (await feed(reader, globex.apiKey, { after })).body.data.changes as Json[];
      if (!changes.some((change) => change.market.slug === slug)) missed.push(slug);
    }
    expect(missed).toEqual([]);
  });

  it('answers a write once its event has its sequence, waiting while another session holds the sequencer', async () => {
    const holder = new pg.Client({ connectionString: a.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(7103, 1)'); // change_log_poll's sequencer lock
      const after = await headOf();
      const started = Date.now();
      const written = admin(a, '/admin/markets', { source: 'globex', slug: 'held-sequencer' }).then((answer) => ({ answer, at: Date.now() }));
      await sleep(200);
      await holder.query('COMMIT');
      const { answer, at } = await written;
      expect(answer.body.code).toBe(0);
      expect(at - started).toBeGreaterThanOrEqual(190);
      const changes = (await feed(b, globex.apiKey, { after })).body.data.changes as Json[];
      expect(changes.map((change) => change.market.slug)).toEqual(['held-sequencer']);
    } finally {
      await holder.end();
    }
  });

  it("waits for the write's own event: a filing's and an admin write's event ids, as the database gave them", async () => {
    const { ChangeLog } = await import('../src/changes/change-log');
    const changeLog = a.app.get(ChangeLog);
    const waitedFor: string[] = [];
    const written = changeLog.written.bind(changeLog);
    changeLog.written = (source, slug, eventId) => (waitedFor.push(eventId), written(source, slug, eventId));
    try {
      const created = await admin(a, '/admin/markets', { source: 'acme', slug: 'own-event' });
      await admin(a, `/admin/markets/${created.body.data.id}/resolve`, {
        verdict: 'NO',
        confidence: 'HIGH',
        reasoning: 'Checked.',
        proofs: [{ chain: 'base', tx_hash: '0xdef' }],
      });
      expect((await file(a, acme.apiKey, created.body.data.id)).body.code).toBe(0);
      const events = await a.dataSource.query('SELECT id::text FROM market_events WHERE market_id = $1 ORDER BY id', [created.body.data.id]);
      expect(waitedFor).toEqual(events.map((event: { id: string }) => event.id));
    } finally {
      changeLog.written = written;
    }
  });

  it('pages by after and limit, next_after the last sequence given (or after when none)', async () => {
    const all = (await feed(a, acme.apiKey, { limit: 500 })).body.data.changes as Json[];
    expect(all.length).toBeGreaterThanOrEqual(4);
    const first = await feed(a, acme.apiKey, { limit: 2 });
    expect(first.body.data).toEqual({ changes: all.slice(0, 2), next_after: all[1].sequence });
    const second = await feed(a, acme.apiKey, { after: first.body.data.next_after, limit: 2 });
    expect(second.body.data.changes).toEqual(all.slice(2, 4));
    const last = all.at(-1)!.sequence;
    expect((await feed(a, acme.apiKey, { after: last })).body).toEqual(ok({ changes: [], next_after: last }));
    expect((await feed(a, acme.apiKey, { after: '0' })).body.data.changes).toEqual(all.slice(0, 100));
  });

  it('refuses an after past the newest event it has sequenced (4000), at once even with wait_ms; the head itself is a cursor', async () => {
    const head = await headOf();
    const past = error(4000, 'invalid request', 'after is past the newest event');
    for (const app of [a, b]) {
      expect((await feed(app, acme.apiKey, { after: head })).body).toEqual(ok({ changes: [], next_after: head }));
      expect((await feed(app, acme.apiKey, { after: head + 1 })).body).toEqual(past);
      expect((await feed(app, globex.apiKey, { after: 99_999_999, wait_ms: 25_000 })).body).toEqual(past);
    }
    // Another source's event moves the head: a cursor up to it is one an answer may have given.
    await fixtures.market('globex', { slug: 'moves-the-head' });
    expect((await feed(b, acme.apiKey, { after: head + 1 })).body).toEqual(ok({ changes: [], next_after: head + 1 }));
  });

  it('refuses what it cannot read: a missing or wrong key, bad values, unknown parameters', async () => {
    expect((await a.http.get('/oracle/markets/changes')).body).toEqual(error(4010, 'api key is required'));
    expect((await feed(a, 'sok_not-a-key')).body).toEqual(error(4011, 'invalid api key'));
    for (const [query, detail] of [
      [{ after: -1 }, 'after must be an integer from 0 to 9007199254740991'],
      [{ after: 'x' }, 'after must be an integer from 0 to 9007199254740991'],
      [{ limit: 0 }, 'limit must be an integer from 1 to 500'],
      [{ limit: 501 }, 'limit must be an integer from 1 to 500'],
      [{ wait_ms: 25_001 }, 'wait_ms must be an integer from 0 to 25000'],
      [{ source: 'globex' }, 'source is not a known field'],
    ] as [Record<string, unknown>, string][]) {
      expect({ query, body: (await feed(a, acme.apiKey, query)).body }).toEqual({ query, body: error(4000, 'invalid request', detail) });
    }
  });

  it('holds a long poll until an event of its source comes, from a write on another instance, within a second', async () => {
    const latencies: number[] = [];
    for (let round = 0; round < 5; round++) {
      const after = await headOf();
      const held = feed(a, acme.apiKey, { after, wait_ms: 10_000 }).then((answer) => ({ answer, at: performance.now() }));
      await sleep(150);
      // Another source's change does not end it.
      await admin(b, '/admin/markets', { source: 'globex', slug: `elsewhere-${round}` });
      await sleep(150);
      const writtenAt = performance.now();
      await admin(b, '/admin/markets', { source: 'acme', slug: `awaited-${round}` });
      const { answer, at } = await held;
      latencies.push(at - writtenAt);
      expect(answer.body.data.changes.map((change: Json) => change.market.slug)).toEqual([`awaited-${round}`]);
    }
    expect(Math.max(...latencies)).toBeLessThan(1_000);
  });

  it('answers a long poll with nothing once its wait ends, or at once when the instance stops', async () => {
    const after = await headOf();
    const started = performance.now();
    expect((await feed(a, acme.apiKey, { after, wait_ms: 300 })).body).toEqual(ok({ changes: [], next_after: after }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    const stopping = await startTestAppOn(a.databaseUrl);
    try {
      const held = feed(stopping, acme.apiKey, { after, wait_ms: 20_000 }).then((answer) => answer);
      await sleep(200);
      const stopAt = performance.now();
      (stopping.app.getHttpAdapter() as unknown as { announceStop(): void }).announceStop();
      expect((await held).body).toEqual(ok({ changes: [], next_after: after }));
      // Far from its 20 s wait; a noisy CI machine once took 712 ms.
      expect(performance.now() - stopAt).toBeLessThan(5_000);
    } finally {
      await stopping.app.close();
    }
  });

  it('bounds the long polls held per key (4290, Retry-After)', async () => {
    const after = await headOf();
    // then(): supertest sends a request once it is awaited.
    const held = [1, 2, 3].map(() => feed(a, acme.apiKey, { after, wait_ms: 1_500 }).then((answer) => answer));
    await sleep(200);
    const refused = await feed(a, acme.apiKey, { after, wait_ms: 1_500 });
    expect(refused.body).toEqual(error(4290, 'too many requests', 'too many changes feed requests waiting'));
    expect(refused.headers['retry-after']).toBe('1');
    // Another key is not refused, and a plain read neither waits nor counts.
    expect((await feed(a, globex.apiKey, { after: await headOf() })).body.code).toBe(0);
    for (const answer of await Promise.all(held)) expect(answer.body.data.changes).toEqual([]);
  });

  it('gives a long poll\'s place back as soon as its client leaves, not at the end of its wait', async () => {
    const after = await headOf();
    const left = [1, 2, 3].map(() => feed(a, acme.apiKey, { after, wait_ms: 20_000 }));
    left.forEach((request) => request.end(() => undefined)); // sent now, never awaited
    await sleep(300);
    expect((await feed(a, acme.apiKey, { after, wait_ms: 1 })).body.code).toBe(4290);
    left.forEach((request) => request.abort());
    await sleep(300);
    const answer = await feed(a, acme.apiKey, { after, wait_ms: 200 });
    expect(answer.body).toEqual({ code: 0, msg: 'success', data: { changes: [], next_after: after } });
  });

  it('answers 4102 to a cursor older than the events kept, saying to continue from the first kept, which skips none', async () => {
    await admin(a, '/admin/markets', { source: 'acme', slug: 'kept-after-the-cut' });
    const head = await headOf();
    const [{ first }] = await a.dataSource.query("SELECT min(sequence)::int AS first FROM market_events WHERE source = 'acme'");
    // As the retention would, in a copy of what it does: events up to the cut deleted, the cut remembered.
    const cut = head - 1;
    await a.dataSource.query('DELETE FROM market_events WHERE sequence <= $1', [cut]);
    await a.dataSource.query('UPDATE change_log_head SET deleted_through = $1', [cut]);
    expect((await feed(a, acme.apiKey, { after: first })).body).toEqual(
      error(4102, 'changes cursor expired', `events up to sequence ${cut} are no longer kept: read your markets again, then continue with after=${cut}`),
    );
    expect((await feed(a, acme.apiKey, { after: cut })).body.data.changes.map((change: Json) => change.market.slug)).toEqual(['kept-after-the-cut']);
    expect((await feed(a, acme.apiKey)).body.data.changes.map((change: Json) => change.market.slug)).toEqual(['kept-after-the-cut']);
  });

  it('never lets a reader skip an event: concurrent writers on two instances and by hand, commits out of order', async () => {
    const from = await headOf();
    const markets = await Promise.all(Array.from({ length: 40 }, (_, i) => fixtures.market('acme', { slug: `race-${i}` })));
    const slowWriters = Array.from({ length: 4 }, () => new pg.Client({ connectionString: a.databaseUrl }));
    await Promise.all(slowWriters.map((client) => client.connect()));
    let writing = true;
    const read: number[] = [];
    const reader = (async () => {
      let after = from;
      for (let idle = 0; writing || idle < 3; ) {
        const answer = await feed(idle % 2 === 0 ? a : b, acme.apiKey, { after, limit: 7, wait_ms: 200 });
        const changes = answer.body.data.changes as Json[];
        read.push(...changes.map((change) => change.sequence));
        after = answer.body.data.next_after;
        idle = writing || changes.length > 0 ? 0 : idle + 1;
      }
    })();
    const writers = [
      // Filings through both instances.
      ...markets.slice(0, 20).map((market, i) => file(i % 2 === 0 ? a : b, acme.apiKey, market.id)),
      // Transactions that append an event and stay open a while: later ones commit before them.
      ...slowWriters.map(async (client, w) => {
        for (let i = 0; i < 5; i++) {
          await client.query('BEGIN');
          await client.query(`SELECT append_market_event('market.resolved', $1)`, [markets[20 + w * 5 + i].id]);
          await sleep(Math.floor(Math.random() * 120));
          await client.query('COMMIT');
        }
      }),
    ];
    await Promise.all(writers);
    writing = false;
    await reader;
    await Promise.all(slowWriters.map((client) => client.end()));
    const table = (await a.dataSource.query("SELECT sequence::int AS sequence FROM market_events WHERE source = 'acme' AND sequence > $1 ORDER BY sequence", [from])).map(
      (row: { sequence: number }) => row.sequence,
    );
    expect(table).toHaveLength(40 + 20 + 20);
    expect(read).toEqual(table);
  });
});
