import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { QueryRunner } from './support/app-database';
import { startTestApp, type TestApp } from './support/test-app';

const MASTER = 'pool-overload-master-key-0123456789abcdef';
const CONNECT_TIMEOUT_MS = 200;
const BUSY = { code: 5031, msg: 'server busy', detail: 'server busy' };
const UNAVAILABLE = { code: 5030, msg: 'service unavailable', detail: 'service unavailable' };

/**
 * A wait for a pool connection that times out (DB_CONNECT_TIMEOUT_MS) is judged by what the
 * database did meanwhile: it answered the instance's other statements (the instance is busy:
 * 5031 with Retry-After, readiness "degraded" and 200), or none (5030, readiness 503). The pool's
 * two connections are held by the test, answering statements or silent.
 */
describe('a full database pool: the instance busy, or the database silent', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      ADMIN_MASTER_KEY: MASTER,
      DB_POOL_SIZE: '2',
      MAX_REQUESTS_PER_CONNECTION: '1',
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    });
  });

  afterAll(async () => {
    await t.close();
  });

  const queue = () => t.http.get('/admin/disputes').set('authorization', `Bearer ${MASTER}`);

  it('answers 5031 with Retry-After and ready "degraded" while the held connections keep being answered; 5030 and 503 once they are silent', async () => {
    const holders: QueryRunner[] = [t.dataSource.createQueryRunner(), t.dataSource.createQueryRunner()];
    for (const holder of holders) await holder.connect();
    let answering = true;
    const ticking = (async () => {
      while (answering) {
        await holders[0].query('SELECT 1');
        await sleep(20);
      }
    })();
    try {
      const busy = await queue();
      expect(busy.body).toEqual(BUSY);
      expect(busy.headers['retry-after']).toBe('1');
      const ready = await t.http.get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({
        status: 'degraded',
        details: { database: { status: 'degraded', message: 'the database answers; this instance is waiting for its connections' } },
      });

      answering = false;
      await ticking;
      await sleep(CONNECT_TIMEOUT_MS + 50);
      expect((await queue()).body).toEqual(UNAVAILABLE);
      await sleep(1_000); // the readiness probe's own window
      const notReady = await t.http.get('/health/ready');
      expect(notReady.status).toBe(503);
      expect(notReady.body.error.database).toEqual({ status: 'down', message: 'the database did not answer' });
    } finally {
      answering = false;
      await ticking;
      for (const holder of holders) await holder.release();
    }
    expect((await queue()).body.code).toBe(0);
    expect((await t.http.get('/health/ready')).body).toMatchObject({ status: 'ok', details: { database: { status: 'up' } } });
  });
});
