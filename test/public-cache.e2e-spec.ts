import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fixtures } from './support/fixtures';
import { HEARTBEAT_TIMEOUT_MS, LISTENER_APPLICATION_NAME } from '../src/markets/public-records/change-feed';
import { fixturesOf, startTestApp, startTestAppOn, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';

/**
 * The public record cache never serves a stale record after a write, on any instance. The
 * TTL is a minute here, so only eviction (local, or announced by the database) can explain a
 * fresh answer.
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
   * Reads (source, slug) on `app` until `fresh` holds (the other instance hears of a change
   * when the database announces it: milliseconds), then checks it keeps holding: once an
   * instance serves the new record it never serves the old one again.
   */
  const becomesFresh = async (app: TestApp, slug: string, fresh: (item: any) => boolean) => {
    const start = Date.now();
    let staleReads = 0;
    while (!fresh((await read(app, slug))[0])) {
      staleReads++;
      expect(Date.now() - start).toBeLessThan(1000);
      await sleep(2);
    }
    for (let i = 0; i < 10; i++) expect(fresh((await read(app, slug))[0])).toBe(true);
    return { ms: Date.now() - start, staleReads };
  };

  it('a dispute filed on one instance is served at once by it, and by the other as soon as it hears', async () => {
    const lags: { ms: number; staleReads: number }[] = [];
    for (let round = 0; round < 20; round++) {
      const market = await fixtures.market(partner.source);
      const [writer, other] = round % 2 === 0 ? [a, b] : [b, a];
      await read(writer, market.slug);
      await read(other, market.slug);
      await read(other, market.slug); // cached on both now

      expect((await submitDispute(writer, market.id)).body.code).toBe(0);

      const [item] = await read(writer, market.slug);
      expect(item.status).toBe('disputed');
      expect(item.disputes).toHaveLength(1);
      lags.push(await becomesFresh(other, market.slug, (fresh) => fresh.status === 'disputed' && fresh.disputes?.length === 1));
    }
  });

  it('a decision recorded on one instance is served by the other as soon as it hears', async () => {
    const market = await fixtures.market(partner.source);
    const filed = await submitDispute(a, market.id);
    await read(b, market.slug);
    await read(b, market.slug);

    const decision = await a.http
      .post(`/admin/disputes/${filed.body.data.dispute_id}/decision`)
      .set('authorization', `Bearer ${MASTER}`)
      .send({ type: 'keep', reason_text: 'Confirmed.' });
    expect(decision.body.code).toBe(0);

    expect((await read(a, market.slug))[0].status).toBe('closed');
    await becomesFresh(b, market.slug, (item) => item.status === 'closed' && item.disputes[0].decision?.type === 'keep');
  });

  it('a market created after a miss was cached is found at once where it was created, and soon on the other', async () => {
    const slug = `not-yet-${Date.now()}`;
    expect(await read(b, slug)).toEqual([]);
    expect(await read(b, slug)).toEqual([]);
    const created = await a.http
      .post('/admin/markets')
      .set('authorization', `Bearer ${MASTER}`)
      .send({ source: partner.source, slug });
    expect(created.body.code).toBe(0);
    expect(await read(a, slug)).toHaveLength(1);
    await becomesFresh(b, slug, (item) => item !== undefined);
  });

  it('a change made outside the service (psql) is announced by the database and evicted on every instance', async () => {
    const market = await fixtures.market(partner.source);
    await read(a, market.slug);
    await read(b, market.slug);
    await a.dataSource.query(`UPDATE markets SET reasoning = 'corrected by hand' WHERE id = $1`, [market.id]);

    for (const app of [a, b]) await becomesFresh(app, market.slug, (item) => item.reasoning === 'corrected by hand');
  });

  it('stops serving from the cache while it cannot hear changes, and resumes once it listens again', async () => {
    const market = await fixtures.market(partner.source);
    await read(b, market.slug);
    await read(b, market.slug);

    // Cut every instance's change listener; a change made now is announced to no one.
    const [{ cut }] = await a.dataSource.query(
      `SELECT count(pg_terminate_backend(pid))::int AS cut FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()`,
      [LISTENER_APPLICATION_NAME],
    );
    expect(cut).toBe(2);
    await a.dataSource.query(`UPDATE markets SET reasoning = 'changed while deaf' WHERE id = $1`, [market.id]);
    await sleep(50);
    const [item] = await read(b, market.slug);
    expect((item as unknown as { reasoning: string }).reasoning).toBe('changed while deaf');

    // The listener reconnects by itself, and the cache serves again.
    await servesFromCacheAgain(b, market.slug);
  });

  /**
   * The silent failure: the listener's connection stays open but nothing comes through it (here
   * its server process is stopped with SIGSTOP; a half-open TCP connection behaves the same). No
   * error, no close: only the missing heartbeat tells, within HEARTBEAT_TIMEOUT_MS + 1 s.
   */
  it('bypasses the cache within the heartbeat bound when its listener freezes, and serves from it again once it hears', async () => {
    const market = await fixtures.market(partner.source);
    await read(b, market.slug);
    await read(b, market.slug); // cached
    const listeners: { pid: number }[] = await a.dataSource.query(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
      [LISTENER_APPLICATION_NAME],
    );
    expect(listeners).toHaveLength(2);
    const silencesBefore = await silences(b);
    for (const { pid } of listeners) process.kill(pid, 'SIGSTOP');
    try {
      const frozenAt = Date.now();
      await a.dataSource.query(`UPDATE markets SET reasoning = 'changed while frozen' WHERE id = $1`, [market.id]);
      let fresh = false;
      let staleReads = 0;
      while (!fresh) {
        fresh = item(await read(b, market.slug)).reasoning === 'changed while frozen';
        expect(Date.now() - frozenAt).toBeLessThan(HEARTBEAT_TIMEOUT_MS + 2000);
        if (!fresh) staleReads++;
        if (!fresh) await sleep(100);
      }
      expect(staleReads).toBeGreaterThan(0); // it was frozen: the change went unheard until the heartbeat was missed
      expect(await silences(b)).toBe(silencesBefore + 1);
    } finally {
      for (const { pid } of listeners) process.kill(pid, 'SIGCONT');
    }
    // A new listener hears again: repeated reads are cache hits once more.
    await servesFromCacheAgain(b, market.slug);
  });

  /**
   * The process stalled, not the listener: for longer than the heartbeat bound no timer ran (here
   * a busy loop; under thousands of busy connections, one turn of the event loop reading
   * sockets). The feed was not deaf, and the cache goes on serving.
   */
  it('keeps the cache when the process itself stalled past the heartbeat bound', async () => {
    // Written once b has heard it: no announcement of its creation is left to evict b's entry after the stall.
    const market = await fixturesOf(b).market(partner.source, { slug: 'heard-by-b-before-the-stall' });
    await read(b, market.slug);
    const silencesBefore = await silences(b);
    const stalledAt = Date.now();
    while (Date.now() - stalledAt < HEARTBEAT_TIMEOUT_MS + 1500) {
      // nothing runs meanwhile: no timer, no socket read
    }
    await sleep(1500);
    expect(await silences(b)).toBe(silencesBefore);
    const before = await cacheHits(b);
    await read(b, market.slug);
    expect((await cacheHits(b)) - before).toBe(1);
  });

  /** Within 5 s the instance's feed listens again and repeated reads of `slug` are cache hits. */
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

  const item = (markets: unknown[]) => markets[0] as { reasoning: string };
  const silences = async (app: TestApp) =>
    Number(/oracle_change_feed_silences_total (\d+)/.exec(await app.metrics())?.[1] ?? 0);
});
