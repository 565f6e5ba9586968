import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { appDatabase } from './support/app-database';
import { dataSourceOptions, MIGRATIONS } from '../src/database/data-source-options';
import { createTestDatabase } from './support/test-app';

describe('starting against DATABASE_URL', () => {
  let database: { url: string; drop(): Promise<void> };
  let apps: INestApplication[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    process.env.DATABASE_URL = database.url;
    process.env.LOG_LEVEL = 'silent';
    process.env.METRICS_PORT = '0';
  });

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await database.drop();
  });

  it('lets two instances start at once on an empty database: migrations run once, both serve', async () => {
    const { createApp } = await import('../src/create-app');
    apps = await Promise.all([createApp(), createApp()]);
    await Promise.all(apps.map((app) => app.init()));

    const migrations = await appDatabase(apps[0]).query('SELECT name FROM schema_migrations');
    expect(migrations).toEqual(MIGRATIONS.map((migration) => ({ name: migration.name })));
    for (const app of apps) {
      const response = await request(app.getHttpServer()).get('/oracle/markets/public?slug=a&source=b');
      expect(response.body).toEqual({ code: 0, msg: 'success', data: { markets: [] } });
    }
  });

  it('never creates demo data when DATABASE_URL is set', async () => {
    const [{ count }] = await appDatabase(apps[0]).query('SELECT count(*)::int AS count FROM partners');
    expect(count).toBe(0);
  });
});

/**
 * Reviewer accounts written under the schema from before `migration` (the migrations run, then
 * undone back to it), then the migrations run again: the names they end with, in id order, and
 * a check on the schema they leave.
 */
async function reviewerNamesAcross(
  migration: string,
  accounts: [name: string, role: string, revoked: boolean][],
  afterwards: (dataSource: DataSource) => Promise<void>,
): Promise<{ names: string[]; ids: number[] }> {
  const database = await createTestDatabase();
  const dataSource = new DataSource(dataSourceOptions({ url: database.url, poolSize: 2, connectTimeoutMs: 5000, statementTimeoutMs: 5000 }));
  try {
    await dataSource.initialize();
    await dataSource.runMigrations();
    const applied = () => dataSource.query('SELECT 1 FROM schema_migrations WHERE name = $1', [migration]);
    while ((await applied()).length > 0) await dataSource.undoLastMigration();
    for (const [i, [name, role, revoked]] of accounts.entries()) {
      await dataSource.query(
        `INSERT INTO reviewers (name, role, key_hash, prefix, revoked_at) VALUES ($1, $2, $3, 'p', CASE WHEN $4 THEN now() END)`,
        [name, role, String(i + 1).repeat(64).slice(0, 64), revoked],
      );
    }
    await dataSource.runMigrations();
    const rows: { id: number; name: string }[] = await dataSource.query('SELECT id::int AS id, name FROM reviewers ORDER BY id');
    await afterwards(dataSource);
    return { names: rows.map((row) => row.name), ids: rows.map((row) => row.id) };
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
  }
}

const anotherAccountNamed = (name: string) => async (dataSource: DataSource) => {
  await expect(dataSource.query(`INSERT INTO reviewers (name, role, key_hash, prefix) VALUES ($1, 'admin', $2, 'p')`, [name, 'f'.repeat(64)])).rejects.toThrow(
    /uq_reviewers_name/,
  );
};

describe('the migrations', () => {
  it('give each reviewer account a name of its own, keeping it on the one in use of those that shared one', async () => {
    const { names, ids } = await reviewerNamesAcross(
      'UniqueReviewerNames1764100000000',
      [['Rita', 'reviewer', false], ['Rita', 'admin', false], ['master', 'admin', false], ['Rita', 'reviewer', true], ['Omar', 'reviewer', false]],
      anotherAccountNamed('Omar'),
    );
    // the newest account not revoked keeps the name, not the newer revoked one
    expect(names).toEqual([`Rita #${ids[0]}`, 'Rita', `master #${ids[2]}`, `Rita #${ids[3]}`, 'Omar']);
  });

  it('then make names unique whatever their letter case, "master" in any case taken', async () => {
    const { names, ids } = await reviewerNamesAcross(
      'ReviewerNamesIgnoreCase1764300000000',
      [['Rita', 'reviewer', false], ['rita', 'admin', true], ['Master', 'admin', false], ['RITA', 'reviewer', false], ['Omar', 'reviewer', false]],
      anotherAccountNamed('omar'),
    );
    expect(names).toEqual([`Rita #${ids[0]}`, `rita #${ids[1]}`, `Master #${ids[2]}`, 'RITA', 'Omar']);
  });
});
