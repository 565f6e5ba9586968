import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options';
import type { Fixtures } from './support/fixtures';
import { createTestDatabase, fixturesOf, NO_RATE_LIMITS, startTestAppOn, type TestApp } from './support/test-app';

/**
 * Read replicas and a primary that takes no writes (contract §9), on one PostgreSQL: a "replica"
 * that is the database itself (never behind), one that does not answer, and the database made
 * read-only as a standby is. The cluster suite (npm run test:cluster) does it with a real
 * streaming replica and a failover.
 */
describe('read replicas, and a database that takes no writes', () => {
  let database: { url: string; drop(): Promise<void> };
  let t: TestApp;
  let fixtures: Fixtures;
  let partner: { source: string; apiKey: string };

  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startTestAppOn(database.url, { ...NO_RATE_LIMITS, DATABASE_READ_URL: `${database.url}, postgres://127.0.0.1:9/nowhere` });
    fixtures = fixturesOf(t);
    partner = await fixtures.partner('replicated');
  });

  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  const metric = async (pattern: RegExp) => Number(pattern.exec(await t.metrics())?.[1] ?? NaN);
  const file = (marketId: number) =>
    t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partner.apiKey).send({
      market_id: marketId,
      submitter_id: 'u-1',
      submitter_name: 'Ada',
      submitter_selection: 'NO',
      reason_text: 'Corrected.',
    });

  it('reads on the replica that answers and has every change, skips the one that does not, and says so', async () => {
    const market = await fixtures.market(partner.source);
    const before = await metric(/^oracle_db_reads_total\{on="replica"\} (\d+)$/m);
    for (let i = 0; i < 3; i++) {
      const read = await t.http.get('/oracle/markets/public').query({ slug: `missing-${i}`, source: partner.source });
      expect(read.body).toEqual({ code: 0, msg: 'success', data: { markets: [] } });
    }
    expect((await t.http.get('/oracle/markets/changes').set('x-api-key', partner.apiKey)).body.data.changes).toHaveLength(1);
    expect((await file(market.id)).body.code).toBe(0);
    // Read back on the replica at once: it has the write (it is the primary here).
    const record = await t.http.get('/oracle/markets/public').query({ slug: market.slug, source: partner.source });
    expect(record.body.data.markets[0].status).toBe('disputed');
    expect((await metric(/^oracle_db_reads_total\{on="replica"\} (\d+)$/m)) - before).toBeGreaterThanOrEqual(4);
    expect(await metric(/^oracle_db_replica_up\{replica="replica-1"\} (\d+)$/m)).toBe(1);
    expect(await metric(/^oracle_db_replica_up\{replica="replica-2"\} (\d+)$/m)).toBe(0);
    const ready = await request(t.app.getHttpServer()).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.info.replicas).toEqual({
      status: 'up',
      replicas: [
        { name: 'replica-1', up: true, lagMs: 0 },
        { name: 'replica-2', up: false, lagMs: null },
      ],
    });
  });

  it('answers writes 5030 and readiness 503 while the database takes none (a standby), and recovers by itself', async () => {
    const market = await fixtures.market(partner.source);
    const name = new URL(database.url).pathname.slice(1);
    // From a session of the test's own, outside the instance's pool.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const readOnly = async (on: boolean) => {
      await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
      // Sessions take it when they start: the instance's open ones end (as a failover ends them).
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    };
    await readOnly(true);
    try {
      let filed = await file(market.id);
      for (let tries = 0; filed.body.code !== 5030 && tries < 5; tries++) filed = await file(market.id); // connections cut mid-way
      expect(filed.body).toEqual({ code: 5030, msg: 'service unavailable', detail: 'service unavailable' });
      const standby = (probe: request.Response) => probe.body.error?.database?.message?.includes('takes no writes');
      let ready = await request(t.app.getHttpServer()).get('/health/ready');
      for (let tries = 0; !standby(ready) && tries < 5; tries++) ready = await request(t.app.getHttpServer()).get('/health/ready'); // connections cut mid-way
      expect(ready.status).toBe(503);
      expect(ready.body.error.database).toEqual({ status: 'down', message: 'the database takes no writes (a standby, or read-only)' });
      // Reads go on.
      expect((await t.http.get('/oracle/markets/public').query({ slug: market.slug, source: partner.source })).body.code).toBe(0);
    } finally {
      await readOnly(false);
      await admin.end();
    }
    let filed = await file(market.id);
    for (let tries = 0; filed.body.code !== 0 && tries < 20; tries++) {
      await sleep(100);
      filed = await file(market.id);
    }
    expect(filed.body.code).toBe(0);
    expect((await request(t.app.getHttpServer()).get('/health/ready')).status).toBe(200);
  });
});

/** A replica far behind (a database of its own, never written: the changes feed's head 0 there), yet taken as current. */
describe('the changes feed on a replica behind the primary', () => {
  let primary: { url: string; drop(): Promise<void> };
  let stale: { url: string; drop(): Promise<void> };
  let t: TestApp;

  beforeAll(async () => {
    [primary, stale] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    const migrations = new DataSource(dataSourceOptions({ url: stale.url, poolSize: 1, connectTimeoutMs: 5000, statementTimeoutMs: 5000 }));
    await migrations.initialize();
    await migrations.runMigrations();
    await migrations.destroy();
    t = await startTestAppOn(primary.url, { ...NO_RATE_LIMITS, DATABASE_READ_URL: stale.url });
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([primary?.drop(), stale?.drop()]);
  });

  it('refuses an after past the newest event by the primary\'s head, never the replica\'s: a cursor it gave is taken', async () => {
    const fixtures = fixturesOf(t);
    const partner = await fixtures.partner('lagged');
    await fixtures.market(partner.source);
    await fixtures.market(partner.source);
    const [{ head }] = await t.dataSource.query('SELECT last_sequence::int AS head FROM change_log_head');
    expect(head).toBeGreaterThanOrEqual(2);
    const feed = (after: number) => t.http.get('/oracle/markets/changes').set('x-api-key', partner.apiKey).query({ after });
    const replicaReads = async () => Number(/^oracle_db_reads_total\{on="replica"\} (\d+)$/m.exec(await t.metrics())?.[1] ?? NaN);
    const before = await replicaReads();
    expect((await feed(head)).body).toEqual({ code: 0, msg: 'success', data: { changes: [], next_after: head } });
    expect((await feed(head - 1)).body.code).toBe(0);
    expect((await replicaReads()) - before).toBe(2);
    expect((await feed(head + 1)).body).toEqual({ code: 4000, msg: 'invalid request', detail: 'after is past the newest event' });
  });
});
