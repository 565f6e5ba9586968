import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { Fixtures, type Heard } from './fixtures';
import { testDatabaseName } from './leftovers';
import { OpenApiValidator } from './openapi-validator';

export interface TestApp {
  app: INestApplication;
  http: ReturnType<typeof request>;
  /** The app's own DataSource (appDatabase). */
  dataSource: DataSource;
  databaseUrl: string;
  /** The Prometheus text its metrics listener (METRICS_PORT) serves. */
  metrics(): Promise<string>;
  /** Tells this app (source, slug) changed, and waits for its read of the change log (see fixturesOf). */
  heard: Heard;
  /** Resolves once this app has read the change log as it is now. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** Rate limits far above what a test sends (suites that send thousands of requests from one address). */
export const NO_RATE_LIMITS = {
  RATE_LIMIT_PUBLIC_PER_MINUTE: '100000000',
  RATE_LIMIT_DISPUTE_PER_MINUTE: '100000000',
  RATE_LIMIT_ADMIN_PER_MINUTE: '100000000',
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '100000000',
};

function serverUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the suites through jest.e2e.config.json');
  return url;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database on the test server; its name always says it is a test database. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = testDatabaseName(randomBytes(6).toString('hex'));
  await onServer((client) => client.query(`CREATE DATABASE ${name}`));
  return {
    url: withDatabase(serverUrl(), name),
    drop: () => onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Boots the real AppModule, as production does (createApp), against its own fresh database
 * with the real migrations applied at start.
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  return bootApp(database, env);
}

/**
 * Fixtures written to `t`'s database that return once `t` has heard them announced, as the
 * service's own writes do: a test's first read of a new market is then cached, never raced
 * by the announcement of the market's own creation.
 */
export function fixturesOf(t: TestApp): Fixtures {
  return new Fixtures(t.dataSource, t.heard);
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/**
 * supertest for `app`, every answer checked against the OpenAPI document the app serves
 * (OpenApiValidator): a test fails on an answer a client generated from /docs-json would
 * misread, whatever else it asserts.
 */
export async function validatedRequest(app: INestApplication): Promise<ReturnType<typeof request>> {
  const agent = request(app.getHttpServer());
  const validator = new OpenApiValidator((await agent.get('/docs-json')).body as Record<string, unknown>);
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !METHODS.has(property)) return value;
      return (url: string) =>
        (value as (url: string) => request.Test).call(target, url).expect((response) =>
          validator.assert({
            method: property,
            target: (response as unknown as { req: { path: string } }).req.path,
            status: response.status,
            headers: response.headers,
            text: response.text,
          }),
        );
    },
  });
}

/** A second instance of the app on another instance's database (it drops nothing on close). */
export function startTestAppOn(databaseUrl: string, env: Record<string, string> = {}): Promise<TestApp> {
  return bootApp({ url: databaseUrl, drop: async () => undefined }, env);
}

async function bootApp(database: { url: string; drop(): Promise<void> }, env: Record<string, string>): Promise<TestApp> {
  // Silent: a passing run prints nothing; what a test expects in the logs it asserts in the fault suite.
  Object.assign(process.env, { DATABASE_URL: database.url, LOG_LEVEL: 'silent', METRICS_PORT: '0', ...env });
  // Imported only now: the configuration is read when AppModule is first loaded.
  const { createApp } = await import('../../src/create-app');
  const { appDatabase } = await import('./app-database');
  const { ChangeLog } = await import('../../src/changes/change-log');
  const { MetricsServer } = await import('../../src/observability/metrics-server');
  const app = await createApp();
  await app.init();
  return {
    app,
    http: await validatedRequest(app),
    dataSource: appDatabase(app),
    databaseUrl: database.url,
    metrics: async () => (await fetch(`http://127.0.0.1:${app.get(MetricsServer).port}/metrics`)).text(),
    heard: (source, slug, eventId) => app.get(ChangeLog).written(source, slug, eventId),
    caughtUp: () => app.get(ChangeLog).pollSoon(),
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
