import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource, QueryRunner } from 'typeorm';
import { type FaultDatabase, FaultPostgres } from './support/fault-postgres';
import { disputeBody, seedResolvedMarkets, type SeededMarket } from './support/seed';
import { ADMIN_MASTER_KEY, ServerProcess } from './support/server-process';
import { WebhookReceiver } from '../support/webhook-receiver';

const ROUNDS = 5;

/**
 * Contract §9 for every answer that tells a client a write happened, not only the write's own:
 * with the change log's sequencing held back by an open transaction, a filing is answered on K
 * while S, the other instance, holds the market's record in its cache. A replay of the filing,
 * a 4091 and a 4092 answered by S must leave S serving the record with the change; so must a
 * webhook K sends while S is paused (a slow reader), read on S as soon as it arrives.
 */
describe('faults: acknowledgments keep the freshness rule across instances', () => {
  let postgres: FaultPostgres;
  let database: FaultDatabase;
  let dataSource: DataSource;
  let k: ServerProcess;
  let s: ServerProcess;
  let markets: SeededMarket[];
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    postgres = await FaultPostgres.start();
    database = await postgres.createDatabase();
    // K alone sends webhooks, to the loopback receiver.
    k = await ServerProcess.start({ databaseUrl: database.url, name: 'ack-k', env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    s = await ServerProcess.start({ databaseUrl: database.url, name: 'ack-s', env: { WEBHOOK_WORKERS: '0' } });
    dataSource = await postgres.connect(database);
    ({ markets } = await seedResolvedMarkets(dataSource, 1, ROUNDS * 4));
  });

  afterAll(async () => {
    s?.signal('SIGCONT');
    await Promise.all([k?.stop(), s?.stop()]);
    await receiver?.close();
    await postgres?.destroy();
  });

  const file = (server: ServerProcess, market: SeededMarket, key?: string) =>
    server.http.request('POST', '/oracle/markets/dispute/submit', {
      headers: { 'x-api-key': market.apiKey, ...(key ? { 'idempotency-key': key } : {}) },
      body: disputeBody(market.id),
    });

  /** The market's record as `server` serves it now (its cache, or a read). */
  async function record(server: ServerProcess, market: SeededMarket) {
    const read = await server.http.request('GET', `/oracle/markets/public?slug=${encodeURIComponent(market.slug)}&source=${market.source}`);
    return (read.body as { data: { markets: { status: string; disputes: { status: string }[] | null }[] } }).data.markets[0];
  }

  const cacheHits = async (server: ServerProcess) =>
    Number(/oracle_public_cache_lookups_total\{result="hit"\} (\d+)/.exec((await server.metricsHttp.request('GET', '/metrics')).body as string)?.[1] ?? 0);

  /** Once `server` answers the market's record, in `status`, from its cache (it caches only while it reads the change log live). */
  async function cachedOn(server: ServerProcess, market: SeededMarket, status: string): Promise<void> {
    for (let tries = 0; tries < 100; tries++) {
      const hits = await cacheHits(server);
      if ((await record(server, market)).status === status && (await cacheHits(server)) > hits) return;
      await sleep(50);
    }
    throw new Error(`${server.name} never served market ${market.id} ${status} from its cache`);
  }

  /** An open transaction with an id older than every event after it: nothing later is sequenced until it ends. */
  async function holdingSequencing<T>(work: () => Promise<T>): Promise<T> {
    const holder: QueryRunner = dataSource.createQueryRunner();
    await holder.startTransaction();
    await holder.query('SELECT pg_current_xact_id()');
    try {
      return await work();
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
  }

  const committed = async (sql: string, values: unknown[]) => {
    for (let tries = 0; tries < 400; tries++) {
      if ((await dataSource.query(sql, values)).length > 0) return;
      await sleep(5);
    }
    throw new Error(`never committed: ${sql}`);
  };

  it('a replay on S, of a filing K has committed, leaves S serving the dispute', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const market = markets[round];
      await cachedOn(s, market, 'resolved');
      const key = `replay-${round}`;
      const { answer: replayed, after } = await holdingSequencing(async () => {
        const first = file(k, market, key);
        await committed('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
        const answer = await file(s, market, key);
        const after = await record(s, market);
        await first;
        return { answer, after };
      });
      expect(replayed.body).toEqual({ code: 0, msg: 'success', data: { dispute_id: expect.any(Number) } });
      expect(replayed.headers?.['idempotent-replayed']).toBe('true');
      expect(after).toEqual(expect.objectContaining({ status: 'disputed', disputes: [expect.objectContaining({ status: 'open' })] }));
    }
  });

  it('a 4091 on S, for a filing K has committed, leaves S serving the dispute', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const market = markets[ROUNDS + round];
      await cachedOn(s, market, 'resolved');
      const { refused, after } = await holdingSequencing(async () => {
        const first = file(k, market);
        await committed("SELECT 1 FROM markets WHERE id = $1 AND status = 'disputed'", [market.id]);
        const refused = await file(s, market);
        const after = await record(s, market);
        await first;
        return { refused, after };
      });
      expect((refused.body as { code: number }).code).toBe(4091);
      expect(after.status).toBe('disputed');
    }
  });

  it('a 4092 on S, for a decision K has committed, leaves S serving the decision', async () => {
    const admin = { authorization: `Bearer ${ADMIN_MASTER_KEY}` };
    for (let round = 0; round < ROUNDS; round++) {
      const market = markets[2 * ROUNDS + round];
      const filed = await file(k, market);
      const disputeId = (filed.body as { data: { dispute_id: number } }).data.dispute_id;
      await cachedOn(s, market, 'disputed');
      const decide = (server: ServerProcess) =>
        server.http.request('POST', `/admin/disputes/${disputeId}/decision`, { headers: admin, body: { type: 'keep', reason_text: 'Checked.' } });
      const { refused, after } = await holdingSequencing(async () => {
        const first = decide(k);
        await committed("SELECT 1 FROM disputes WHERE id = $1 AND status = 'closed'", [disputeId]);
        const refused = await decide(s);
        const after = await record(s, market);
        await first;
        return { refused, after };
      });
      expect((refused.body as { code: number }).code).toBe(4092);
      expect(after.status).toBe('closed');
    }
  });

  it('a webhook K sends, read on S the moment it arrives, finds S serving the dispute (S paused meanwhile)', async () => {
    const source = markets[0].source;
    const registered = await k.http.request('POST', `/admin/partners/${source}/webhooks`, {
      headers: { authorization: `Bearer ${ADMIN_MASTER_KEY}` },
      body: { url: receiver.url('/ack') },
    });
    expect((registered.body as { code: number }).code).toBe(0);
    for (let round = 0; round < ROUNDS; round++) {
      const market = markets[3 * ROUNDS + round];
      await cachedOn(s, market, 'resolved');
      s.signal('SIGSTOP');
      let after: Awaited<ReturnType<typeof record>> | undefined;
      try {
        const filing = file(k, market);
        await receiver.waitFor(1, (request) => request.path === '/ack' && (JSON.parse(request.body) as { data: { market: { id: number } } }).data.market.id === market.id, 15_000);
        s.signal('SIGCONT');
        after = await record(s, market);
        await filing;
      } finally {
        s.signal('SIGCONT');
      }
      expect(after).toEqual(expect.objectContaining({ status: 'disputed', disputes: [expect.objectContaining({ status: 'open' })] }));
    }
  });
});
