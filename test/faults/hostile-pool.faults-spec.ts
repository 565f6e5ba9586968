import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from './support/http-client';
import { countCodes, expectNo5000, type HostileServer, lockMarket, metricValue, startHostileServer, underAttack } from './support/hostile';
import { uncachedRead } from './support/innocent';
import { openConnections, RawConnection, rawRequest } from './support/raw-http';
import { disputeBody, type SeededMarket } from './support/seed';

const PER_CONNECTION_LIMIT = 8; // MAX_REQUESTS_PER_CONNECTION's default (below DB_POOL_SIZE's)
const POOL_SIZE = 10; // DB_POOL_SIZE's default
const ATTACK_MS = 3_000;

/**
 * The database pool (10 connections) against connections that each keep 8 requests in progress:
 * fast queries share it (the queue is bounded by the connections' limits, nobody gets 5030);
 * slow ones (waiting on a lock) hold at most 8 of its connections, and another client is served
 * with the rest.
 */
describe('faults: the database pool under pipelining connections', () => {
  let h: HostileServer;
  let locked: SeededMarket;

  beforeAll(async () => {
    h = await startHostileServer({ name: 'pool-server', perPartner: 3 });
    locked = h.markets[2];
  });

  afterAll(async () => {
    await h?.stop();
  });

  /** The pool's largest numbers of connections in use and of requests waiting for one, sampled until `until` resolves. */
  async function samplePool(until: Promise<unknown>): Promise<{ inUse: number; waiting: number }> {
    const s = h.server;
    let done = false;
    void until.finally(() => (done = true));
    const max = { inUse: 0, waiting: 0 };
    while (!done) {
      max.inUse = Math.max(max.inUse, await metricValue(s, 'oracle_db_pool_connections', { state: 'in_use' }));
      max.waiting = Math.max(max.waiting, await metricValue(s, 'oracle_db_pool_connections', { state: 'waiting' }));
      await sleep(50);
    }
    return max;
  }

  for (const count of [1, 3]) {
    it(`${count} connection(s) keeping 8 uncached reads in progress share the pool with a second client`, async () => {
      const s = h.server;
      const connections = h.track(...(await openConnections(s.port, count)));
      const attack = await underAttack(s, h.innocent, async () => {
        const deadline = performance.now() + ATTACK_MS;
        const reading = Promise.all(connections.map((c) => c.keepInProgress(() => rawRequest('GET', uncachedRead()), PER_CONNECTION_LIMIT, deadline)));
        const pool = await samplePool(reading);
        return { sent: (await reading).reduce((a, b) => a + b, 0), pool };
      });
      const answers = connections.flatMap((c) => c.answers.map((answer) => answer.body));
      expect(answers.length).toBe(attack.outcome.sent);
      expect(answers.filter((answer) => answer.code !== 0)).toEqual([]);
      const { pool } = attack.outcome;
      // The queue for the pool is bounded by what the connections may have in progress (and the innocent client's one).
      expect(pool.waiting).toBeLessThanOrEqual(Math.max(0, count * PER_CONNECTION_LIMIT + 1 - POOL_SIZE));
      await expectNo5000(s);
      console.log(
        [
          `${count} connection(s) keeping ${PER_CONNECTION_LIMIT} uncached reads in progress for ${ATTACK_MS} ms (pool of ${POOL_SIZE}):`,
          `  ${attack.summary}`,
          `  ${answers.length} answers (${countCodes(answers)}); pool in use at most ${pool.inUse}, requests waiting for it at most ${pool.waiting}`,
        ].join('\n'),
      );
    });
  }

  it('one connection whose 8 requests wait on a lock cannot hold the whole pool: a second client is served', async () => {
    const s = h.server;
    const [second] = h.track(new HttpClient(s.http.baseUrl, '127.0.0.3'));
    const [attacker] = h.track(await RawConnection.open(s.port));
    const lock = await lockMarket(h.dataSource, locked.id);
    let served: Awaited<ReturnType<HttpClient['request']>>[] = [];
    let pool = { inUse: 0, waiting: 0 };
    try {
      attacker.startReading();
      for (let n = 0; n < PER_CONNECTION_LIMIT; n++) {
        attacker.write(rawRequest('POST', '/oracle/markets/dispute/submit', { 'x-api-key': locked.apiKey }, disputeBody(locked.id, n)));
      }
      await sleep(200);
      const reads = Promise.all([0, 1, 2].map(() => second.request('GET', uncachedRead(), { timeoutMs: 10_000 })));
      pool = await samplePool(reads);
      served = await reads;
    } finally {
      await lock.release();
    }
    for (const read of served) {
      expect(read.body.code).toBe(0);
      expect(read.ms).toBeLessThan(500);
    }
    // The lock's waiters: 5030 once lock_timeout passed, or filed after the rollback (one wins, the rest 4091).
    const answers = (await attacker.readAnswers(PER_CONNECTION_LIMIT, 10_000)).map((answer) => answer.body);
    expect(answers).toHaveLength(PER_CONNECTION_LIMIT);
    for (const answer of answers) expect([0, 4091, 5030]).toContain(answer.code);
    await expectNo5000(s);
    console.log(
      [
        `One connection's ${PER_CONNECTION_LIMIT} disputes waiting on a locked market row (pool of ${POOL_SIZE}):`,
        `  pool in use at most ${pool.inUse}, requests waiting for it at most ${pool.waiting}`,
        `  a second client's uncached reads: ${countCodes(served.map((read) => read.body))} after ${served.map((read) => read.ms.toFixed(0)).join(', ')} ms`,
        `  the connection's own answers: ${countCodes(answers)}`,
      ].join('\n'),
    );
  });
});
