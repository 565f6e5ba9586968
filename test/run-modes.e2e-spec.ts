import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '../src/database/data-source-options';
import { createTestDatabase } from './support/test-app';

describe('starting against DATABASE_URL', () => {
  let database: { url: string; drop(): Promise<void> };
  let apps: INestApplication[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    process.env.DATABASE_URL = database.url;
    process.env.LOG_LEVEL = 'silent';
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await database.drop();
  });

  it('lets two instances start at once on an empty database: migrations run once, both serve', async () => {
    const { createApp } = await import('../src/create-app');
    apps = await Promise.all([createApp(), createApp()]);
    await Promise.all(apps.map((app) => app.init()));

    const dataSource = apps[0].get(DataSource);
    const migrations = await dataSource.query('SELECT name FROM schema_migrations');
    expect(migrations).toEqual(MIGRATIONS.map((migration) => ({ name: migration.name })));
    for (const app of apps) {
      const response = await request(app.getHttpServer()).get('/oracle/markets/public?slug=a&source=b');
      expect(response.body).toEqual({ code: 0, msg: 'success', data: { markets: [] } });
    }
  });

  it('never creates demo data when DATABASE_URL is set', async () => {
    const [{ count }] = await apps[0].get(DataSource).query('SELECT count(*)::int AS count FROM partners');
    expect(count).toBe(0);
  });
});

describe('the migrations', () => {
  it('give each reviewer account a name of its own, keeping it on the one in use of those that shared one', async () => {
    const database = await createTestDatabase();
    const dataSource = new DataSource(dataSourceOptions({ url: database.url, poolSize: 2, connectTimeoutMs: 5000, statementTimeoutMs: 5000 }));
    try {
      await dataSource.initialize();
      await dataSource.runMigrations();
      // the schema before UniqueReviewerNames
      const applied = () => dataSource.query(`SELECT 1 FROM schema_migrations WHERE name = 'UniqueReviewerNames1764100000000'`);
      while ((await applied()).length > 0) await dataSource.undoLastMigration();
      const hashes = [1, 2, 3, 4, 5].map((n) => String(n).repeat(64));
      await dataSource.query(
        `INSERT INTO reviewers (name, role, key_hash, prefix, revoked_at) VALUES
          ('Rita', 'reviewer', $1, 'p', NULL), ('Rita', 'admin', $2, 'p', NULL), ('master', 'admin', $3, 'p', NULL),
          ('Rita', 'reviewer', $4, 'p', now()), ('Omar', 'reviewer', $5, 'p', NULL)`,
        hashes,
      );
      await dataSource.runMigrations();
      const rows: { id: number; name: string }[] = await dataSource.query('SELECT id::int AS id, name FROM reviewers ORDER BY id');
      const ids = rows.map((row) => row.id);
      // the newest account not revoked keeps the name, not the newer revoked one
      expect(rows.map((row) => row.name)).toEqual([`Rita #${ids[0]}`, 'Rita', `master #${ids[2]}`, `Rita #${ids[3]}`, 'Omar']);
      await expect(dataSource.query(`INSERT INTO reviewers (name, role, key_hash, prefix) VALUES ('Omar', 'admin', $1, 'p')`, ['6'.repeat(64)])).rejects.toThrow(
        /uq_reviewers_name/,
      );
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await database.drop();
    }
  });
});
