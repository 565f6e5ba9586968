import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual as isDeepEqual } from 'node:util';
import pg from 'pg';
import type { FaultDatabase, FaultPostgres } from './support/fault-postgres';
import { startOneServer } from './support/one-server';
import type { HttpResult } from './support/http-client';
import { disputeBody, marketStates, type SeededMarket } from './support/seed';
import { ADMIN_MASTER_KEY, type ServerProcess } from './support/server-process';

const READERS = 4;
const READ_PAUSE_MS = 20;
const DISPUTE_PAUSE_MS = 60;
const PROBE_PAUSE_MS = 100;
const OUTAGE_MS = 3_000;
/** No request may take longer than this, before, during or after the outage. */
const MAX_LATENCY_MS = 2_000;
const FIRST_5030_WITHIN_MS = 2_000;
const RECOVERY_WITHIN_MS = 5_000;
/** DB_STATEMENT_TIMEOUT_MS's default, and the client's 500 ms beyond it. */
const CLIENT_STATEMENT_TIMEOUT_MS = 2_500;

const UNAVAILABLE = { code: 5030, msg: 'service unavailable', detail: 'service unavailable' };

type Kind = 'read' | 'dispute' | 'ready' | 'live';
interface Sample extends HttpResult {
  kind: Kind;
  /** Sent as x-request-id, so a sample can be found in the server's log. */
  id: string;
  marketId?: number;
}

/**
 * The database goes away while partners poll and file disputes: the server answers 5030 at once
 * (nothing hangs), reports not ready, stays live, and recovers by itself when the database is back.
 */
describe('faults: the database stops while requests flow', () => {
  let postgres: FaultPostgres;
  let database: FaultDatabase;
  let server: ServerProcess | undefined;
  let readTarget: SeededMarket;
  let disputeTargets: SeededMarket[];

  beforeAll(async () => {
    const started = await startOneServer({ name: 'outage-server', perPartner: 251 });
    ({ postgres, database, server } = started);
    const { dataSource, markets } = started;
    [readTarget, ...disputeTargets] = markets;
    // Our own connections would only see the outage too: closed now, reopened for the checks.
    await dataSource.destroy();
  });

  afterAll(async () => {
    await server?.stop();
    await postgres?.destroy();
  });

  it('answers 5030 within 2 s while the database is down, and recovers by itself within 5 s', async () => {
    const s = server!;
    const pid = s.pid;
    const samples: Sample[] = [];
    let running = true;
    let sequence = 0;
    const probe = async (kind: Kind, method: string, path: string, extra: { body?: unknown; headers?: Record<string, string>; marketId?: number } = {}) => {
      const id = `faults-${kind}-${++sequence}`;
      const result = await s.http.request(method, path, {
        body: extra.body,
        headers: { ...extra.headers, 'x-request-id': id },
        timeoutMs: 10_000,
      });
      samples.push({ kind, id, marketId: extra.marketId, ...result });
      return result;
    };
    const readPath = `/oracle/markets/public?slug=${encodeURIComponent(readTarget.slug)}&source=${encodeURIComponent(readTarget.source)}`;
    // Client-side timeouts far above the 2 s bound: a hang shows as a long latency, not as a pass.
    const loops: Promise<void>[] = [];
    for (let r = 0; r < READERS; r++) {
      loops.push(
        (async () => {
          while (running) {
            await probe('read', 'GET', readPath);
            await sleep(READ_PAUSE_MS);
          }
        })(),
      );
    }
    let nextMarket = 0;
    loops.push(
      (async () => {
        while (running && nextMarket < disputeTargets.length) {
          const market = disputeTargets[nextMarket++];
          await probe('dispute', 'POST', '/oracle/markets/dispute/submit', {
            headers: { 'x-api-key': market.apiKey },
            body: disputeBody(market.id),
            marketId: market.id,
          });
          await sleep(DISPUTE_PAUSE_MS);
        }
      })(),
    );
    loops.push(
      (async () => {
        while (running) {
          await probe('ready', 'GET', '/health/ready');
          await probe('live', 'GET', '/health/live');
          await sleep(PROBE_PAUSE_MS);
        }
      })(),
    );

    let stopBegin = 0;
    let stopEnd = 0;
    let restartBegin = 0;
    let restartEnd = 0;
    let readsBack: Sample | undefined;
    let readyBack: Sample | undefined;
    try {
      await sleep(1_000);
      stopBegin = performance.now();
      await postgres.stop();
      stopEnd = performance.now();
      await sleep(OUTAGE_MS);
      restartBegin = performance.now();
      await postgres.restart();
      restartEnd = performance.now();

      // Recovery, with no help: the first good answers once the database is back.
      const waitUntil = restartEnd + RECOVERY_WITHIN_MS + 3_000;
      while (performance.now() < waitUntil && !(readsBack && readyBack)) {
        readsBack ??= samples.find((x) => x.kind === 'read' && x.startedAt >= stopEnd && x.body?.code === 0);
        readyBack ??= samples.find((x) => x.kind === 'ready' && x.startedAt >= stopEnd && x.status === 200);
        await sleep(20);
      }
      await sleep(1_000); // and it stays recovered
    } finally {
      running = false;
      await Promise.all(loops);
    }
    // A failure shows the offending samples on the outage's timeline, and the server's log.
    const at = (t: number) =>
      `${(t - stopBegin).toFixed(0)} ms after the stop began (stop took ${(stopEnd - stopBegin).toFixed(0)} ms, ` +
      `restart began at ${(restartBegin - stopBegin).toFixed(0)}, database back at ${(restartEnd - stopBegin).toFixed(0)})`;
    const explain = (x: Sample) =>
      `${x.id} started ${at(x.startedAt)}, took ${x.ms.toFixed(0)} ms: ${x.status} ${x.error ?? JSON.stringify(x.body)}`;
    function failWith(message: string, offenders: Sample[]): never {
      throw new Error(`${message}\n${offenders.slice(0, 10).map(explain).join('\n')}\n${s.logs()}`);
    }
    if (!readsBack || !readyBack) failWith('the service did not recover', []);

    const of = (kind: Kind) => samples.filter((x) => x.kind === kind);
    const before = (x: Sample) => x.endedAt <= stopBegin;
    const duringOutage = (x: Sample) => x.startedAt >= stopEnd && x.endedAt <= restartBegin;
    const afterRecovery = (x: Sample, back: Sample) => x.startedAt >= back.endedAt;

    // The server process stayed the same one all along.
    expect(s.running).toBe(true);
    expect(s.pid).toBe(pid);

    // Every partner-API request got an HTTP 200 envelope: a result, or 5030; never a hang.
    const partnerRequests = [...of('read'), ...of('dispute')];
    const noAnswer = partnerRequests.filter((x) => x.status !== 200);
    if (noAnswer.length > 0) failWith('partner requests got no HTTP 200 answer', noAnswer);
    const unexpected = partnerRequests.filter((x) => x.body.code !== 0 && !isDeepEqual(x.body, UNAVAILABLE));
    if (unexpected.length > 0) failWith('partner requests answered neither a result nor the 5030 envelope', unexpected);
    const tooSlow = samples.filter((x) => x.ms > MAX_LATENCY_MS);
    if (tooSlow.length > 0) failWith(`requests took longer than ${MAX_LATENCY_MS} ms`, tooSlow);
    const slowest = partnerRequests.reduce((a, b) => (b.ms > a.ms ? b : a));

    // Before the stop: all good.
    expect(of('read').filter(before).length).toBeGreaterThan(10);
    expect(of('read').filter(before).every((x) => x.body.code === 0)).toBe(true);
    expect(of('dispute').filter(before).length).toBeGreaterThan(0);
    expect(of('dispute').filter(before).every((x) => x.body.code === 0)).toBe(true);

    // During the outage: only 5030, and fast.
    const outageReads = of('read').filter(duringOutage);
    const outageDisputes = of('dispute').filter(duringOutage);
    expect(outageReads.length).toBeGreaterThan(20);
    expect(outageDisputes.length).toBeGreaterThan(5);
    for (const x of [...outageReads, ...outageDisputes]) expect(x.body).toEqual(UNAVAILABLE);
    const first5030 = samples
      .filter((x) => (x.kind === 'read' || x.kind === 'dispute') && x.body?.code === 5030)
      .reduce((a, b) => (b.endedAt < a.endedAt ? b : a));
    const first5030Ms = first5030.endedAt - stopBegin;
    expect(first5030Ms).toBeLessThanOrEqual(FIRST_5030_WITHIN_MS);

    // Probes: not ready (503) during the outage, live (200) throughout.
    const outageReady = of('ready').filter(duringOutage);
    expect(outageReady.length).toBeGreaterThan(3);
    expect(outageReady.map((x) => x.status)).toEqual(outageReady.map(() => 503));
    expect(of('ready').filter(before).every((x) => x.status === 200)).toBe(true);
    expect(of('live').length).toBeGreaterThan(10);
    expect(of('live').every((x) => x.status === 200)).toBe(true);
    const outageProbeMaxMs = Math.max(...[...outageReady, ...of('live').filter(duringOutage)].map((x) => x.ms));
    expect(outageProbeMaxMs).toBeLessThanOrEqual(MAX_LATENCY_MS);

    // Recovery: by itself, within 5 s of the database being back, and for good.
    const readsBackMs = readsBack.endedAt - restartEnd;
    const readyBackMs = readyBack.endedAt - restartEnd;
    expect(readsBackMs).toBeLessThanOrEqual(RECOVERY_WITHIN_MS);
    expect(readyBackMs).toBeLessThanOrEqual(RECOVERY_WITHIN_MS);
    const readsAfter = of('read').filter((x) => afterRecovery(x, readsBack!));
    expect(readsAfter.length).toBeGreaterThan(10);
    expect(readsAfter.every((x) => x.body.code === 0)).toBe(true);
    expect(readsAfter[readsAfter.length - 1].body.data.markets[0]).toMatchObject({ id: readTarget.id, status: 'resolved' });
    expect(of('ready').filter((x) => afterRecovery(x, readyBack!)).every((x) => x.status === 200)).toBe(true);
    const disputesAfter = of('dispute').filter((x) => afterRecovery(x, readsBack!));
    expect(disputesAfter.length).toBeGreaterThan(0);
    expect(disputesAfter.every((x) => x.body.code === 0)).toBe(true);

    // Nothing half-done: acknowledged disputes are there, a 5030 during the outage left its market alone.
    const dataSource = await postgres.connect(database);
    const submitted = of('dispute');
    const states = await marketStates(
      dataSource,
      submitted.map((x) => x.marketId!),
    );
    for (const x of submitted) {
      const state = states.get(x.marketId!);
      if (x.body.code === 0) expect(state).toEqual({ status: 'disputed', disputes: 1 });
      else if (duringOutage(x)) expect(state).toEqual({ status: 'resolved', disputes: 0 });
      else expect([{ status: 'disputed', disputes: 1 }, { status: 'resolved', disputes: 0 }]).toContainEqual(state);
    }

    const maxMs = (list: Sample[]) => Math.max(...list.map((x) => x.ms)).toFixed(0);
    const outageAll = [...outageReads, ...outageDisputes];
    const codes = (list: Sample[]) =>
      Object.entries(
        list.reduce<Record<string, number>>((acc, x) => ({ ...acc, [x.body.code]: (acc[x.body.code] ?? 0) + 1 }), {}),
      )
        .map(([code, count]) => `${count} x ${code}`)
        .join(', ');
    console.log(
      [
        `Database outage (${READERS} readers every ${READ_PAUSE_MS} ms, a dispute every ${DISPUTE_PAUSE_MS} ms, probes every ${PROBE_PAUSE_MS} ms; database down ${(restartBegin - stopBegin).toFixed(0)} ms):`,
        `  PostgreSQL fast shutdown took ${(stopEnd - stopBegin).toFixed(0)} ms, its restart ${(restartEnd - restartBegin).toFixed(0)} ms`,
        `  first 5030 answered ${first5030Ms.toFixed(0)} ms after the stop began (${first5030.kind})`,
        `  during the outage: ${outageReads.length} reads and ${outageDisputes.length} disputes, all 5030; ` +
          `latency max ${maxMs(outageAll)} ms (reads ${maxMs(outageReads)} ms, disputes ${maxMs(outageDisputes)} ms), ` +
          `mean ${(outageAll.reduce((a, x) => a + x.ms, 0) / outageAll.length).toFixed(1)} ms`,
        `  /health/ready 503 in ${outageReady.length} of ${outageReady.length} probes (max ${maxMs(outageReady)} ms); /health/live 200 throughout`,
        `  slowest partner request over the whole run: ${slowest.ms.toFixed(0)} ms (${slowest.kind})`,
        `  recovered by itself: first code-0 read ${readsBackMs.toFixed(0)} ms, /health/ready 200 ${readyBackMs.toFixed(0)} ms ` +
          `after the database was back (${(readsBack.endedAt - restartBegin).toFixed(0)} / ${(readyBack.endedAt - restartBegin).toFixed(0)} ms after its restart began); same pid`,
        `  all requests: reads ${codes(of('read'))}; disputes ${codes(submitted)}`,
      ].join('\n'),
    );
  });

  it('answers 5030 within the statement timeout while the database hangs, a transaction too, and recovers once it answers', async () => {
    const s = server!;
    let partners = 0;
    const createPartner = () =>
      s.http.request('POST', '/admin/partners', {
        headers: { authorization: `Bearer ${ADMIN_MASTER_KEY}` },
        body: { source: `hang-${++partners}`, name: `Hang ${partners}` },
      });
    // Its pool's connections open before it hangs: a statement, not a new connection, is what waits.
    for (let i = 0; i < 3; i++) expect((await createPartner()).body.code).toBe(0);
    const resume = await postgres.freeze();
    let hung: HttpResult;
    try {
      hung = await createPartner();
    } finally {
      await resume();
    }
    expect(hung.body).toEqual(UNAVAILABLE);
    // BEGIN's timeout, not BEGIN's and then a ROLLBACK's behind it on the same hung connection (5 s).
    expect(hung.ms).toBeLessThan(CLIENT_STATEMENT_TIMEOUT_MS + 1_000);
    let after = await createPartner();
    for (const deadline = performance.now() + RECOVERY_WITHIN_MS; after.body?.code !== 0 && performance.now() < deadline; after = await createPartner()) {
      await sleep(100);
    }
    expect(after.body.code).toBe(0);
  });

  it('answers a long poll of the changes feed held when the database stops with 5030 at once, not at the end of its wait', async () => {
    const s = server!;
    const market = disputeTargets[disputeTargets.length - 2];
    const feed = (query: string) => s.http.request('GET', `/oracle/markets/changes?${query}`, { headers: { 'x-api-key': market.apiKey }, timeoutMs: 30_000 });
    // After its source's newest event: nothing to answer, so it is held for its 20 s.
    let after = 0;
    for (let page = await feed('limit=500'); page.body.data.changes.length > 0; page = await feed(`after=${after}&limit=500`)) after = page.body.data.next_after;
    const held = feed(`after=${after}&wait_ms=20000`);
    await sleep(500);
    const stoppedAt = performance.now();
    await postgres.stop();
    try {
      const answer = await held;
      expect(answer.body).toEqual(UNAVAILABLE);
      expect(answer.endedAt - stoppedAt).toBeLessThan(FIRST_5030_WITHIN_MS);
    } finally {
      await postgres.restart();
    }
    let answer = await feed(`after=${after}`);
    for (const deadline = performance.now() + RECOVERY_WITHIN_MS; answer.body?.code !== 0 && performance.now() < deadline; answer = await feed(`after=${after}`)) await sleep(100);
    expect(answer.body).toEqual({ code: 0, msg: 'success', data: { changes: [], next_after: after } });
  });

  it('answers 5030 while the database accepts no new sessions, and recovers by itself when it does again', async () => {
    const s = server!;
    const market = disputeTargets[disputeTargets.length - 1];
    const read = () => s.http.request('GET', `/oracle/markets/public?slug=never-read&source=${encodeURIComponent(market.source)}`);
    const file = () => s.http.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': market.apiKey }, body: disputeBody(market.id) });
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      // Its sessions ended, and new ones refused while the server is up: 55000 from PostgreSQL's
      // session setup, which was answered 5000.
      await admin.query(`ALTER DATABASE ${database.name} WITH ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database.name]);
      for (let attempt = 0; attempt < 3; attempt++) {
        expect((await read()).body).toEqual(UNAVAILABLE);
        expect((await file()).body).toEqual(UNAVAILABLE);
      }
      expect((await s.http.request('GET', '/health/ready')).status).toBe(503);
    } finally {
      await admin.query(`ALTER DATABASE ${database.name} WITH ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    let answer = await read();
    for (const deadline = performance.now() + RECOVERY_WITHIN_MS; answer.body?.code !== 0 && performance.now() < deadline; answer = await read()) {
      await sleep(100);
    }
    expect(answer.body).toEqual({ code: 0, msg: 'success', data: { markets: [] } });
    expect((await file()).body.code).toBe(0);
  });
});
