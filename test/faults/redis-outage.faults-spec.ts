import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/database/embedded-database';
import { FaultPostgres } from './support/fault-postgres';
import { HttpClient } from './support/http-client';
import { expectNo5000, fileDispute, metricValue, underAttack } from './support/hostile';
import { InnocentClient, type InnocentSample, type OrdinaryRequest, ordinaryRequests } from './support/innocent';
import { RedisServer } from './support/redis-server';
import { disputeBody, seedResolvedMarkets, type SeededMarket } from './support/seed';
import { ADMIN_MASTER_KEY, ServerProcess } from './support/server-process';

const COMMAND_TIMEOUT_MS = 200; // REDIS_COMMAND_TIMEOUT_MS's default
/** No request may wait much longer than the command timeout for Redis. */
const REDIS_WAIT_BOUND_MS = COMMAND_TIMEOUT_MS + 250;
const AUTH_FAILURES_PER_MINUTE = 30; // RATE_LIMIT_AUTH_FAILURES_PER_MINUTE's default: counted in the rate-limit store
const OUTAGE_MS = 2_500;
const RECONNECT_WITHIN_MS = 10_000;

/**
 * The rate-limit store (Redis) unreachable from the start, killed and stalled under load: the
 * instances fail open to their own memory (a request waits at most the command timeout for
 * Redis, never fails because of it), print no unhandled error, stay ready, and share their
 * budgets again once Redis is back.
 */
describe('faults: Redis unreachable, killed and stalled', () => {
  let postgres: FaultPostgres;
  let redis: RedisServer | undefined;
  let servers: ServerProcess[] = [];
  let [a, b, unreachable]: (ServerProcess | undefined)[] = [];
  const innocents: InnocentClient[] = [];
  let market: SeededMarket;

  beforeAll(async () => {
    postgres = await FaultPostgres.start();
    const database = await postgres.createDatabase();
    redis = await RedisServer.start();
    const nowhere = await freePort(); // nothing listens there
    servers = await Promise.all([
      ServerProcess.start({ databaseUrl: database.url, name: 'redis-a', env: { REDIS_URL: redis.url } }),
      ServerProcess.start({ databaseUrl: database.url, name: 'redis-b', env: { REDIS_URL: redis.url } }),
      ServerProcess.start({ databaseUrl: database.url, name: 'redis-unreachable', env: { REDIS_URL: `redis://127.0.0.1:${nowhere}` } }),
    ]);
    [a, b, unreachable] = servers;
    const { markets } = await seedResolvedMarkets(await postgres.connect(database), 1, 2);
    const [cached, disputed] = markets;
    market = cached;
    await fileDispute(a, disputed);
    const ordinary: OrdinaryRequest[] = [
      ...ordinaryRequests(cached, disputed),
      { label: 'admin read', method: 'GET', path: '/admin/disputes?status=open', headers: { authorization: `Bearer ${ADMIN_MASTER_KEY}` }, code: 0 },
    ];
    innocents.push(...servers.map((server) => new InnocentClient(server, ordinary)));
  });

  afterAll(async () => {
    for (const innocent of innocents) innocent.close();
    await Promise.all(servers.map((server) => server.stop()));
    await redis?.kill();
    await postgres?.destroy();
  });

  /**
   * 20 failed authentications at each of A and B from `address`, in turn: 4290 for some of them
   * when A and B count them together (in Redis: past 30), none when each counts its own 20.
   */
  async function refusedAcrossInstances(address: string): Promise<number> {
    const clients = [a!, b!].map((server) => new HttpClient(server.http.baseUrl, address));
    let refused = 0;
    try {
      for (let i = 0; i < 40; i++) {
        const answer = await clients[i % 2].request('POST', '/oracle/markets/dispute/submit', {
          headers: { 'x-api-key': `sok_${randomBytes(16).toString('hex')}` },
          body: disputeBody(market.id),
        });
        expect([4011, 4290]).toContain(answer.body.code);
        if (answer.body.code === 4290) refused++;
      }
    } finally {
      for (const client of clients) client.close();
    }
    return refused;
  }

  /** No unhandled ioredis error on the server's output; the store's failure logged at most once (once a minute). */
  function expectQuietOutput(server: ServerProcess): number {
    expect(server.lines.filter((line) => /unhandled|\[ioredis\]/i.test(line))).toEqual([]);
    const warnings = server.lines.filter((line) => line.includes('the rate-limit store (Redis) failed')).length;
    expect(warnings).toBeLessThanOrEqual(1);
    return warnings;
  }

  /**
   * Reads at A and at B, each from an address of its own, until Redis holds the counts of both
   * addresses: both instances count there again. Resolves to how long it took.
   */
  async function untilBothCountInRedis(deadline: number): Promise<number> {
    const startedAt = performance.now();
    const probes = [a!, b!].map((server, i) => ({ client: new HttpClient(server.http.baseUrl, `127.0.0.${20 + i}`), pattern: `*:127.0.0.${20 + i}:*` }));
    try {
      while (performance.now() < deadline) {
        for (const probe of probes) expect((await probe.client.request('GET', `/oracle/markets/public?slug=${market.slug}&source=${market.source}`)).body.code).toBe(0);
        const counted = await Promise.all(probes.map((probe) => redis!.command((client) => client.keys(probe.pattern))));
        if (counted.every((keys) => keys.length > 0)) return performance.now() - startedAt;
        await sleep(100);
      }
      throw new Error(`the instances did not count in Redis again within ${RECONNECT_WITHIN_MS} ms`);
    } finally {
      for (const probe of probes) probe.client.close();
    }
  }

  const maxMs = (samples: InnocentSample[]) => Math.max(...samples.map((x) => x.result.ms));

  it('answers reads, disputes and admin calls normally with Redis unreachable from the start, and stays ready', async () => {
    const s = unreachable!;
    const attack = await underAttack(s, innocents[2], () => sleep(1_500));
    const ready = await s.http.request('GET', '/health/ready');
    expect(ready.status).toBe(200);
    const errors = await metricValue(s, 'oracle_rate_limit_store_errors_total');
    expect(errors).toBeGreaterThan(0);
    const warnings = expectQuietOutput(s);
    await expectNo5000(s);
    console.log(
      [
        'Redis unreachable from the start (REDIS_URL to a port where nothing listens):',
        `  ${attack.summary}`,
        `  /health/ready ${ready.status}; oracle_rate_limit_store_errors_total ${errors}; ${warnings} warning line, no unhandled error`,
      ].join('\n'),
    );
  });

  it('shares one budget across instances through Redis', async () => {
    expect(await refusedAcrossInstances('127.0.0.10')).toBeGreaterThan(0);
  });

  for (const fault of ['stalled (SIGSTOP)', 'killed (SIGKILL)'] as const) {
    it(`keeps answering with Redis ${fault} under load, each request waiting at most ~the command timeout, and shares budgets again once it is back`, async () => {
      const errorsBefore = await metricValue(a!, 'oracle_rate_limit_store_errors_total');
      let refusedMeanwhile = 0;
      const attack = await underAttack(
        a!,
        innocents[0],
        async () => {
          innocents[1].start();
          if (fault === 'stalled (SIGSTOP)') redis!.stall();
          else await redis!.kill();
          await sleep(OUTAGE_MS);
          refusedMeanwhile = await refusedAcrossInstances(fault === 'stalled (SIGSTOP)' ? '127.0.0.11' : '127.0.0.13');
          return innocents[1].stop();
        },
        REDIS_WAIT_BOUND_MS,
      );
      const atB = attack.outcome;
      expect(atB.filter((x) => x.result.body?.code !== x.request.code)).toEqual([]);
      expect(maxMs(attack.during)).toBeLessThan(REDIS_WAIT_BOUND_MS);
      expect(maxMs(atB)).toBeLessThan(REDIS_WAIT_BOUND_MS);
      // Meanwhile each instance counted in its own memory: 20 failures each, under 30.
      expect(refusedMeanwhile).toBe(0);
      const errors = (await metricValue(a!, 'oracle_rate_limit_store_errors_total')) - errorsBefore;
      expect(errors).toBeGreaterThan(0);

      // Back: resumed, or started again empty on the same port; the instances count there again.
      const backAt = performance.now();
      if (fault === 'stalled (SIGSTOP)') redis!.resume();
      else await redis!.restart();
      const countedAgainMs = await untilBothCountInRedis(backAt + RECONNECT_WITHIN_MS);
      await sleep(1_200); // past the 1 s in which an instance leaves Redis alone after a failure
      const refusedAfter = await refusedAcrossInstances(fault === 'stalled (SIGSTOP)' ? '127.0.0.12' : '127.0.0.14');
      expect(refusedAfter).toBeGreaterThan(0);
      const back = performance.now() - backAt;
      for (const server of [a!, b!]) expectQuietOutput(server);
      await Promise.all([expectNo5000(a!), expectNo5000(b!)]);
      console.log(
        [
          `Redis ${fault} for ${OUTAGE_MS} ms under load (REDIS_COMMAND_TIMEOUT_MS ${COMMAND_TIMEOUT_MS}; instances A and B):`,
          `  at A: ${attack.summary}`,
          `  at B: ${atB.length} ordinary requests, all answered their normal codes, slowest ${maxMs(atB).toFixed(0)} ms`,
          `  A's store errors counted: ${errors}; ${2 * 20} failed authentications from one address across A and B: ` +
            `${refusedMeanwhile} refused meanwhile (each counted its own, under ${AUTH_FAILURES_PER_MINUTE}), ${refusedAfter} once Redis was back (shared)`,
          `  both instances counting in Redis again ${countedAgainMs.toFixed(0)} ms after it was back; budgets shared again ${back.toFixed(0)} ms after`,
        ].join('\n'),
      );
    });
  }
});
