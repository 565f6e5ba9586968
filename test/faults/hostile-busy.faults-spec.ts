import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from './support/http-client';
import { expectNo5000, lockMarket, metricValue } from './support/hostile';
import { type OneServer, startOneServer } from './support/one-server';
import { RawConnection, rawRequest } from './support/raw-http';
import { disputeBody } from './support/seed';

const IN_FLIGHT_LIMIT = 4;
const BUSY = { code: 5031, msg: 'server busy', detail: 'server busy' };

/**
 * The process-wide limit on requests in progress (MAX_REQUESTS_IN_FLIGHT): past it, a request
 * is answered 5031 with Retry-After at once, before any database or Redis work, logged at
 * `warn` (nothing failed); the probes and the metrics are answered however busy the instance
 * is; the places come back as the answers are written.
 */
describe('faults: a busy instance sheds what it cannot take', () => {
  let h: OneServer;

  beforeAll(async () => {
    h = await startOneServer({ name: 'busy-server', perPartner: 2, env: { MAX_REQUESTS_IN_FLIGHT: String(IN_FLIGHT_LIMIT) } });
  });

  afterAll(async () => {
    await h?.server.stop();
    await h?.postgres.destroy();
  });

  it(`answers 5031 with Retry-After past ${IN_FLIGHT_LIMIT} requests in progress, and serves again once they are answered`, async () => {
    const s = h.server;
    const [locked, other] = h.markets;
    const client = new HttpClient(s.http.baseUrl, '127.0.0.3');
    const holder = await RawConnection.open(s.port);
    // Disputes on a locked market row wait for it (at most lock_timeout, 2 s): the places are taken.
    const lock = await lockMarket(h.dataSource, locked.id);
    let shed: Awaited<ReturnType<HttpClient['request']>>[] = [];
    let probes: Awaited<ReturnType<HttpClient['request']>>[] = [];
    let inFlight = 0;
    try {
      holder.startReading();
      for (let n = 0; n < IN_FLIGHT_LIMIT; n++) {
        holder.write(rawRequest('POST', '/oracle/markets/dispute/submit', { 'x-api-key': locked.apiKey }, disputeBody(locked.id, n)));
      }
      await sleep(300);
      inFlight = await metricValue(s, 'oracle_http_requests_in_flight');
      shed = await Promise.all([
        client.request('GET', `/oracle/markets/public?slug=${other.slug}&source=${other.source}`),
        client.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': other.apiKey }, body: disputeBody(other.id) }),
      ]);
      probes = await Promise.all([client.request('GET', '/health/live'), client.request('GET', '/health/ready')]);
    } finally {
      await lock.release();
    }
    expect(inFlight).toBe(IN_FLIGHT_LIMIT);
    for (const answer of shed) {
      expect(answer.body).toEqual(BUSY);
      expect(answer.headers?.['retry-after']).toBe('1');
      expect(answer.ms).toBeLessThan(250);
    }
    expect(probes.map((probe) => probe.status)).toEqual([200, 200]);
    // The waiting disputes, on one market: one filed, the others 4091.
    const held = (await holder.readAnswers(IN_FLIGHT_LIMIT, 10_000)).map((answer) => answer.body.code);
    expect(held.filter((code) => code === 0)).toHaveLength(1);
    holder.close();
    await sleep(100);
    expect(await metricValue(s, 'oracle_http_requests_in_flight')).toBe(0);
    // Nothing was filed for the shed dispute: it is filed now.
    const again = await client.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': other.apiKey }, body: disputeBody(other.id) });
    expect(again.body.code).toBe(0);
    expect(await metricValue(s, 'oracle_http_requests_shed_total', { reason: 'process' })).toBe(2);
    const lines = await s.linesMatching((line) => line.includes('"code":5031'), 2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ level: 40, code: 5031 });
    await expectNo5000(s);
    client.close();
    console.log(
      [
        `MAX_REQUESTS_IN_FLIGHT ${IN_FLIGHT_LIMIT}, all taken by disputes waiting on a locked row:`,
        `  a read and a dispute: 5031 with Retry-After: 1 in ${shed.map((answer) => answer.ms.toFixed(0)).join(', ')} ms; /health/live and /health/ready: 200`,
        `  the waiting disputes once the lock was released: ${held.join(', ')}; in flight back to 0; the shed dispute filed on retry`,
      ].join('\n'),
    );
  });
});
