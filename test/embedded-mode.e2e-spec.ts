import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { EmbeddedDatabase } from '../src/database/embedded-database';

describe('zero-setup mode (no DATABASE_URL): embedded PostgreSQL with demo data', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oracle-embedded-'));
    await chmod(dataDir, 0o755);
    delete process.env.DATABASE_URL;
    delete process.env.ADMIN_MASTER_KEY;
    process.env.EMBEDDED_DATA_DIR = dataDir;
    process.env.LOG_LEVEL = 'silent';
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function boot() {
    const { createApp } = await import('../src/create-app');
    const app = await createApp();
    await app.init();
    return app;
  }

  it('creates the demo partner and one market in each status on first start, and keeps them across restarts', async () => {
    const first = await boot();
    const statuses: string[] = [];
    for (const slug of [
      'will-it-snow-in-lisbon-2026',
      'btc-above-100k-2026',
      'eth-etf-flows-positive-2026',
      'fed-cuts-rates-2026',
    ]) {
      const response = await request(first.getHttpServer()).get('/oracle/markets/public').query({ slug, source: 'demo' });
      expect(response.body.code).toBe(0);
      statuses.push(response.body.data.markets[0].status);
    }
    expect(statuses).toEqual(['monitoring', 'resolved', 'disputed', 'closed']);
    await first.close();

    const second = await boot();
    const closed = await request(second.getHttpServer())
      .get('/oracle/markets/public')
      .query({ slug: 'fed-cuts-rates-2026', source: 'demo' });
    expect(closed.body.data.markets[0].disputes[0].decision).toMatchObject({
      type: 'override',
      partner_final_verdict: 'NO',
    });
    const { DataSource } = await import('typeorm');
    const [{ markets, admins }] = await second
      .get(DataSource)
      .query(`SELECT (SELECT count(*)::int FROM markets) AS markets,
                     (SELECT count(*)::int FROM reviewers WHERE role = 'admin') AS admins`);
    expect({ markets, admins }).toEqual({ markets: 4, admins: 1 });
    await second.close();
  });

  it('takes over a cluster whose previous owner was killed, leaving its server running', async () => {
    const orphanDir = await mkdtemp(join(tmpdir(), 'oracle-orphan-'));
    await chmod(orphanDir, 0o755);
    try {
      // The first owner "dies": its postgres keeps running and holding the cluster.
      const orphaned = await EmbeddedDatabase.start({ dataDir: orphanDir });
      const next = await EmbeddedDatabase.start({ dataDir: orphanDir });
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: next.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
      await client.end();
      await next.stop();
      void orphaned;
    } finally {
      await rm(orphanDir, { recursive: true, force: true });
    }
  });
});
