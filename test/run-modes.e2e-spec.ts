import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../src/database/data-source-options';
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
