import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fixtures } from './support/fixtures';
import type { Queryable } from './support/app-database';
import pg from 'pg';
import { fixturesOf, startTestApp, startTestAppOn, type TestApp } from './support/test-app';

/** The change log is read every 25 ms (CHANGES_POLL_INTERVAL_MS); an instance is not live past 1 s (CHANGES_DEAF_AFTER_MS). */
const DEAF_AFTER_MS = 1_000;

const MASTER = 'test-master-key-0123456789abcdef';

/**
 * The public record cache: once a write is answered, every instance serves it (the answer waits
 * for the other instance to read its event); a change made by hand is read within the next read of
 * the change log (25 ms); an instance bypasses its cache when it cannot read the log or the log is
 * held back. The TTL is a minute here, so only eviction can explain a fresh answer.
 */
describe('public record cache across instances', () => {
  let a: TestApp;
  let b: TestApp;
  let fixtures: Fixtures;
  let partner: { source: string; apiKey: string };

  beforeAll(async () => {
    a = await startTestApp({ ADMIN_MASTER_KEY: MASTER, PUBLIC_CACHE_TTL_MS: '60000' });
    b = await startTestAppOn(a.databaseUrl);
    fixtures = fixturesOf(a);
    partner = await fixtures.partner('cache-partner');
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const read = async (app: TestApp, slug: string) => {
    const response = await app.http.get('/oracle/markets/public').query({ slug, source: partner.source });
    expect(response.body.code).toBe(0);
    return response.body.data.markets as { status: string; disputes: { status: string; decision: unknown }[] | null }[];
  };

  const cacheHits = async (app: TestApp) => {
    return Number(/oracle_public_cache_lookups_total\{result="hit"\} (\d+)/.exec(await app.metrics())?.[1] ?? 0);
  };

  const submitDispute = (app: TestApp, marketId: number) =>
    app.http.post('/oracle/markets/dispute/submit').set('x-api-key', partner.apiKey).send({
      market_id: marketId,
      submitter_id: 'u-1',
      submitter_name: 'Ada',
      submitter_selection: 'NO',
      reason_text: 'The source was corrected.',
    });

  it('serves repeated reads from the cache', async () => {
    const market = await fixtures.market(partner.source);
    const before = await cacheHits(a);
    for (let i = 0; i < 5; i++) expect((await read(a, market.slug))[0].status).toBe('resolved');
    expect((await cacheHits(a)) - before).toBeGreaterThanOrEqual(4);
  });

  /**
   * Reads (source, slug) on `app` until `fresh` holds (the other instance reads a change at its
   * next read of the change log: 25 ms), then checks it keeps holding: once an instance serves
   * the new record it never serves the old one again.
   */
  const becomesFresh = async (app: TestApp, slug: string, fresh: (item: any) => boolean) => {
    const start = Date.now();
    let staleReads = 0;
    while (!fresh((await read(app, slug))[0])) {
      staleReads++;
      expect(Date.now() - start).toBeLessThan(500);
      await sleep(2);
    }
    for (let i = 0; i < 10; i++) expect(fresh((await read(app, slug))[0])).toBe(true);
    return { ms: Date.now() - start, staleReads };
  };

  it('a dispute filed on one instance is served, once answered, by both', async () => {
    for (let round = 0; round < 20; round++) {
      const market = await fixtures.market(partner.source);
      await b.caughtUp();
      const [writer, other] = round % 2 === 0 ? [a, b] : [b, a];
      await read(writer, market.slug);
      await read(other, market.slug);
      await read(other, market.slug); // cached on both now

      expect((await submitDispute(writer, market.id)).body.code).toBe(0);

      const [item] = await read(writer, market.slug);
      expect(item.status).toBe('disputed');
      expect(item.disputes).toHaveLength(1);
      const [fresh] = await read(other, market.slug);
      expect([fresh.status, fresh.disputes?.length]).toEqual(['disputed', 1]);
    }
  });

  it('a decision recorded on one instance is served, once answered, by the other', async () => {
    const market = await fixtures.market(partner.source);
    const filed = await submitDispute(a, market.id);
    await b.caughtUp();
    await read(b, market.slug);
    await read(b, market.slug);

    const decision = await a.http
      .post(`/admin/disputes/${filed.body.data.dispute_id}/decision`)
      .set('authorization', `Bearer ${MASTER}`)
      .send({ type: 'keep', reason_text: 'Confirmed.' });
    expect(decision.body.code).toBe(0);

    expect((await read(a, market.slug))[0].status).toBe('closed');
    const [fresh] = await read(b, market.slug);
    expect([fresh.status, (fresh.disputes![0].decision as { type: string } | null)?.type]).toEqual(['closed', 'keep']);
  });

  it('a market created after a miss was cached is found, once answered, on both', async () => {
    const slug = `not-yet-${Date.now()}`;
    expect(await read(b, slug)).toEqual([]);
    expect(await read(b, slug)).toEqual([]);
    const created = await a.http
      .post('/admin/markets')
      .set('authorization', `Bearer ${MASTER}`)
      .send({ source: partner.source, slug });
    expect(created.body.code).toBe(0);
    expect(await read(a, slug)).toHaveLength(1);
    expect(await read(b, slug)).toHaveLength(1);
  });

  it('a fix by hand that appends its event, as it should, is evicted on every instance', async () => {
    const market = await fixtures.market(partner.source);
    await b.caughtUp();
    await read(a, market.slug);
    await read(b, market.slug);
    await a.dataSource.transaction(async (manager: Queryable) => {
      await manager.query(`UPDATE markets SET reasoning = 'corrected by hand' WHERE id = $1`, [market.id]);
      await manager.query(`SELECT append_market_event('market.resolved', $1)`, [market.id]);
    });
    for (const app of [a, b]) await becomesFresh(app, market.slug, (item) => item.reasoning === 'corrected by hand');
  });

  it('bypasses the cache while it cannot read the change log, and serves from it again once it can', async () => {
    const market = await fixtures.market(partner.source);
    await b.caughtUp(); // b has read the market's creation: nothing will evict what it caches now
    await read(b, market.slug);
    await read(b, market.slug); // cached
    expect(item(await read(b, market.slug)).status).toBe('resolved');
    await a.dataSource.query('ALTER FUNCTION change_log_poll(bigint, integer) RENAME TO change_log_poll_away');
    try {
      await a.dataSource.query(`UPDATE markets SET reasoning = 'changed while unread' WHERE id = $1`, [market.id]);
      const cutAt = Date.now();
      while (item(await read(b, market.slug)).reasoning !== 'changed while unread') {
        expect(Date.now() - cutAt).toBeLessThan(DEAF_AFTER_MS + 1_000);
        await sleep(50);
      }
    } finally {
      await a.dataSource.query('ALTER FUNCTION change_log_poll_away(bigint, integer) RENAME TO change_log_poll');
    }
    await servesFromCacheAgain(b, market.slug);
  });

  it('bypasses the cache while a long transaction holds events back from their sequence, and serves again once it ends', async () => {
    const market = await fixtures.market(partner.source);
    await b.caughtUp(); // b has read the market's creation: nothing will evict what it caches now
    await read(b, market.slug);
    await read(b, market.slug); // cached
    // A transaction with an xid, older than the filing's: the filing's event waits for its sequence.
    const holder = new pg.Client({ connectionString: a.databaseUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_current_xact_id()');
    try {
      // Answered once its event has waited CHANGES_DEAF_AFTER_MS for its sequence; b may stop trusting its cache before.
      const filing = submitDispute(a, market.id).then((response) => response); // then(): sent now, awaited at the end
      const status = async () => (await a.dataSource.query('SELECT status FROM markets WHERE id = $1', [market.id]))[0].status;
      while ((await status()) !== 'disputed') await sleep(10);
      const committedAt = Date.now();
      let staleReads = 0;
      while (item(await read(b, market.slug)).status !== 'disputed') {
        staleReads++;
        expect(Date.now() - committedAt).toBeLessThan(DEAF_AFTER_MS + 1_000);
        await sleep(50);
      }
      expect(staleReads).toBeGreaterThan(0); // committed, its event held back: b served its cache, then went to the database
      expect(await live(b)).toBe(0);
      expect((await filing).body.code).toBe(0);
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
    await servesFromCacheAgain(b, market.slug);
    expect(await live(b)).toBe(1);
  });

  it('once a write held back by a long transaction is answered, the other instance no longer serves the record as before', async () => {
    const holder = new pg.Client({ connectionString: a.databaseUrl });
    await holder.connect();
    try {
      // Rounds: the other instance's polls fall anywhere in the second the write waits.
      for (let round = 0; round < 3; round++) {
        const market = await fixtures.market(partner.source);
        await b.caughtUp();
        await read(b, market.slug);
        await holder.query('BEGIN');
        await holder.query('SELECT pg_current_xact_id()');
        const filing = await submitDispute(a, market.id);
        expect(filing.body.code).toBe(0);
        expect(item(await read(b, market.slug)).status).toBe('disputed');
        await holder.query('COMMIT');
      }
    } finally {
      await holder.end();
    }
  });

  /** Within 5 s repeated reads of `slug` on `app` are cache hits again. */
  const servesFromCacheAgain = async (app: TestApp, slug: string) => {
    const deadline = Date.now() + 5000;
    let hits = 0;
    while (Date.now() < deadline && hits === 0) {
      await sleep(100);
      const before = await cacheHits(app);
      await read(app, slug);
      await read(app, slug);
      hits = (await cacheHits(app)) - before;
    }
    expect(hits).toBeGreaterThan(0);
  };

  it('a write waits for a reader that stopped polling no longer than CHANGES_DEAF_AFTER_MS, and not at all once its instance stopped', async () => {
    const silent = '00000000-0000-4000-8000-000000000001';
    await a.dataSource.query('INSERT INTO change_log_readers (instance, cursor, polled_at) VALUES ($1, 0, now())', [silent]);
    try {
      const started = Date.now();
      const created = await a.http.post('/admin/markets').set('authorization', `Bearer ${MASTER}`).send({ source: partner.source, slug: `silent-${started}` });
      expect(created.body.code).toBe(0);
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThan(DEAF_AFTER_MS / 2);
      expect(waited).toBeLessThan(DEAF_AFTER_MS + 500);
    } finally {
      await a.dataSource.query('DELETE FROM change_log_readers WHERE instance = $1', [silent]);
    }
    const stopping = await startTestAppOn(a.databaseUrl);
    await stopping.close();
    const started = Date.now();
    const created = await a.http.post('/admin/markets').set('authorization', `Bearer ${MASTER}`).send({ source: partner.source, slug: `after-stop-${started}` });
    expect(created.body.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(DEAF_AFTER_MS / 2);
  });

  const item = (markets: unknown[]) => markets[0] as { reasoning: string; status: string };
  const live = async (app: TestApp) => Number(/^oracle_change_log_live (\d+)$/m.exec(await app.metrics())?.[1]);
});
