import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient, type HttpResult, runPool } from './support/http-client';
import { countCodes, expectNo5000, metricValue } from './support/hostile';
import { uncachedRead } from './support/innocent';
import { type OneServer, startOneServer } from './support/one-server';
import { ADMIN_MASTER_KEY } from './support/server-process';

const KEYS = 101;
const POLLS_PER_KEY = 10; // CHANGES_WAITS_PER_KEY's default: 1,010 polls, 10 past CHANGES_WAITS_MAX
const ROUNDS = 5;
const BURST = 200;
const SHED_REASONS = ['process', 'answers', 'client-answers', 'bodies', 'database-pool'];

/**
 * The storm: 1,010 long polls from 101 keys, half of them disconnected and the rest
 * woken at once, five times over. A woken poll counts among the requests in progress as it reads,
 * waiting its turn within half the places: none is refused, ordinary requests keep the other
 * half, and after the storm the gauge is 0 and every ordinary request is admitted.
 */
describe('faults: a long-poll storm', () => {
  let one: OneServer;
  let keys: string[];
  let slug = 0;
  const source = () => one.markets[0].source;
  const asAdmin = { authorization: `Bearer ${ADMIN_MASTER_KEY}` };

  beforeAll(async () => {
    one = await startOneServer({ name: 'long-poll-server' });
    const issued = await runPool(Array.from({ length: KEYS - 1 }, () => () => one.server.http.request('POST', `/admin/partners/${source()}/keys`, { headers: asAdmin })), 8);
    keys = [one.markets[0].apiKey, ...issued.map((answer) => answer.body.data.api_key as string)];
  });

  afterAll(async () => {
    await one?.server.stop();
    await one?.postgres.destroy();
  });

  /** An event of the partner's: wakes every long poll at once. */
  const wake = () => one.server.http.request('POST', '/admin/markets', { headers: asAdmin, body: { source: source(), slug: `storm-${++slug}` } });

  /** BURST reads from an address of their own, 32 at once, half of them database queries. */
  async function ordinaryBurst(): Promise<HttpResult[]> {
    const client = new HttpClient(one.server.http.baseUrl, '127.0.0.3');
    const cached = `/oracle/markets/public?slug=${one.markets[0].slug}&source=${source()}`;
    const burst = await runPool(Array.from({ length: BURST }, (_, i) => () => client.request('GET', i % 2 === 0 ? cached : uncachedRead())), 32);
    client.close();
    return burst;
  }

  async function head(): Promise<number> {
    let after = 0;
    for (;;) {
      const page = await one.server.http.request('GET', `/oracle/markets/changes?after=${after}&limit=500`, { headers: { 'x-api-key': keys[0] } });
      expect(page.body.code).toBe(0);
      if (page.body.data.changes.length === 0) return after;
      after = page.body.data.next_after;
    }
  }

  it(`admits ordinary requests during and after ${ROUNDS} rounds of ${KEYS * POLLS_PER_KEY} long polls disconnected and woken`, async () => {
    const polled: HttpResult[] = [];
    const duringWake: HttpResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const clients = keys.map(() => new HttpClient(one.server.http.baseUrl));
      const after = await head();
      // Opened a hundred at a time, so that each is held rather than shed as it arrives.
      const polls: Promise<HttpResult>[] = [];
      for (let i = 0; i < keys.length; i++) {
        for (let n = 0; n < POLLS_PER_KEY; n++) {
          polls.push(clients[i].request('GET', `/oracle/markets/changes?after=${after}&wait_ms=20000`, { headers: { 'x-api-key': keys[i] }, timeoutMs: 30_000 }));
        }
        if (i % 10 === 9) await sleep(150);
      }
      await sleep(2_000);
      // Half the keys' clients leave, then one event wakes the rest at once: they read while ordinary requests come.
      keys.forEach((_, i) => i % 2 === 1 && clients[i].close());
      expect((await wake()).body.code).toBe(0);
      duringWake.push(...(await ordinaryBurst()));
      polled.push(...(await Promise.all(polls)));
      for (const client of clients) client.close();
    }
    await sleep(500);
    const inFlight = await metricValue(one.server, 'oracle_http_requests_in_flight');
    const shedBefore = await metricValue(one.server, 'oracle_http_requests_shed_total');
    const burst = await ordinaryBurst();
    const shed = (await metricValue(one.server, 'oracle_http_requests_shed_total')) - shedBefore;
    const reasons = await Promise.all(SHED_REASONS.map(async (reason) => `${reason} ${await metricValue(one.server, 'oracle_http_requests_shed_total', { reason })}`));
    console.log(
      [
        `${ROUNDS} rounds of ${KEYS * POLLS_PER_KEY} long polls from ${KEYS} keys of one partner, half disconnected, then all woken by one event: ${countCodes(polled.map((p) => p.body ?? { code: p.error }))}`,
        `ordinary reads as each round's polls were woken: ${countCodes(duringWake.map((b) => b.body))}`,
        `then in flight ${inFlight}; a burst of ${BURST} ordinary reads (32 at once): ${countCodes(burst.map((b) => b.body))}, ${shed} shed (all along, by reason: ${reasons.join(', ')})`,
      ].join('\n'),
    );
    expect(polled.filter((poll) => poll.body?.code === 5031)).toEqual([]);
    expect(duringWake.filter((read) => read.body?.code === 5031)).toEqual([]);
    expect(inFlight).toBe(0);
    expect(countCodes(burst.map((b) => b.body))).toBe(`${BURST} x 0`);
    expect(await metricValue(one.server, 'oracle_http_requests_shed_total', { reason: 'database-pool' })).toBe(0);
    await expectNo5000(one.server);
  });
});
