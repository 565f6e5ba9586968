import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import request from 'supertest';
import { decimalsUpTo } from '../src/common/validation';
import { MetricsServer } from '../src/observability/metrics-server';
import { Sql, type Statement } from '../src/database/sql';
import type { QueryResultRow } from 'pg';
import { fixturesOf, startTestApp, type TestApp } from './support/test-app';

const PUBLIC_LIMIT = 5;
const ADMIN_LIMIT = 3;
const DISPUTE_LIMIT = 3;
const MASTER = 'operations-master-key-0123456789abcdef';

describe('operations: health, metrics, rate limits, docs, shutdown', () => {
  let t: TestApp;
  let second: INestApplication;

  beforeAll(async () => {
    t = await startTestApp({
      RATE_LIMIT_PUBLIC_PER_MINUTE: String(PUBLIC_LIMIT),
      RATE_LIMIT_ADMIN_PER_MINUTE: String(ADMIN_LIMIT),
      RATE_LIMIT_DISPUTE_PER_MINUTE: String(DISPUTE_LIMIT),
      ADMIN_MASTER_KEY: MASTER,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      RATE_LIMIT_REDIS_PREFIX: `test-${randomBytes(6).toString('hex')}`,
    });
    const { createApp } = await import('../src/create-app');
    second = await createApp();
    await second.init();
  });

  afterAll(async () => {
    await second.close();
    await t.close();
  });

  it('answers the probes with real HTTP status codes', async () => {
    const live = await t.http.get('/health/live');
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ status: 'ok' });
    const ready = await t.http.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' } } });
  });

  it('answers probes asked together with one ping of the database: a flood of them (never shed) sends one at a time', async () => {
    const sql = t.app.get(Sql);
    const rows = sql.rows.bind(sql);
    const pings = { sent: 0, inProgress: 0, mostAtOnce: 0 };
    sql.rows = ((statement: Statement<QueryResultRow>, ...rest: unknown[]) => {
      if (!statement.text.includes('pg_is_in_recovery')) return rows(statement, ...(rest as []));
      pings.sent++;
      pings.mostAtOnce = Math.max(pings.mostAtOnce, ++pings.inProgress);
      // A slow database: each ping takes 200 ms, so that the probes surely overlap.
      return sleep(200)
        .then(() => rows(statement))
        .finally(() => pings.inProgress--);
    }) as typeof sql.rows;
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, () => request(t.app.getHttpServer()).get('/health/ready')));
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
      expect(pings.sent).toBeGreaterThan(0);
      expect(pings.sent).toBeLessThan(10);
      expect(pings.mostAtOnce).toBe(1);
    } finally {
      sql.rows = rows;
    }
  });

  it('reports not ready (503) while the database refuses connections, answers the API 5030, and is ready again after', async () => {
    const database = new URL(t.databaseUrl).pathname.slice(1);
    const partner = await fixturesOf(t).partner('refused');
    const server = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await server.connect();
    try {
      await server.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
      await server.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
      const notReady = await t.http.get('/health/ready');
      expect(notReady.status).toBe(503);
      expect(notReady.body).toMatchObject({ status: 'error', error: { database: { status: 'down' } } });
      // The driver's message (here the database's name; elsewhere its host and port) stays in the process (contract §1).
      expect(notReady.body.error.database).toEqual({ status: 'down', message: 'the database did not answer' });
      expect(JSON.stringify(notReady.body)).not.toContain(database);
      expect((await t.http.get('/health/live')).status).toBe(200);
      // PostgreSQL refuses the session (55000, "not currently accepting connections"): it was 5000.
      const submitted = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partner.apiKey).send({});
      expect(submitted.body).toEqual({ code: 5030, msg: 'service unavailable', detail: 'service unavailable' });
    } finally {
      await server.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
      await server.end();
    }
    expect((await t.http.get('/health/ready')).status).toBe(200);
  });

  it('exposes Prometheus metrics by route and envelope code on METRICS_PORT, and not on the public port', async () => {
    const onPublicPort = await request(second.getHttpServer()).get('/metrics');
    expect(onPublicPort.body).toEqual({ code: 4044, msg: 'not found', detail: 'not found' });
    const metricsUrl = `http://127.0.0.1:${second.get(MetricsServer).port}`;
    const response = await fetch(`${metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await response.text();
    expect(text).toMatch(/oracle_http_requests_total\{method="GET",route="unmatched",code="4044"\} 1/);
    expect(text).toMatch(/oracle_http_request_duration_seconds_bucket/);
    expect(text).toMatch(/oracle_db_pool_connections\{state="idle"\}/);
    expect(text).toMatch(/oracle_disputes_filed_total/);
    expect(text).toMatch(/process_resident_memory_bytes/);
    // The listener serves nothing else: no envelope, no API.
    const elsewhere = await fetch(`${metricsUrl}/oracle/markets/public?slug=a&source=b`);
    expect([elsewhere.status, await elsewhere.text()]).toEqual([404, 'not found: GET /metrics\n']);
  });

  it('limits the public read per client IP across instances sharing Redis: 4290 with Retry-After and the X-RateLimit headers', async () => {
    const instances = [t.http, request(second.getHttpServer())];
    const responses = [];
    for (let i = 0; i < PUBLIC_LIMIT + 2; i++) {
      responses.push(await instances[i % 2].get('/oracle/markets/public?slug=a&source=b'));
    }
    expect(responses[0].headers['x-ratelimit-limit']).toBe(String(PUBLIC_LIMIT));
    expect(responses[0].headers['x-ratelimit-remaining']).toBe(String(PUBLIC_LIMIT - 1));
    expect(Number(responses[0].headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    expect(responses.slice(0, PUBLIC_LIMIT).every((r) => r.body.code === 0)).toBe(true);
    const limited = responses[PUBLIC_LIMIT];
    expect(limited.status).toBe(200);
    expect(limited.body).toEqual({ code: 4290, msg: 'too many requests', detail: 'too many requests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The refusal states the budget too: none left, until the window lets this IP in again.
    expect(limited.headers['x-ratelimit-limit']).toBe(String(PUBLIC_LIMIT));
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-reset']).toBe(limited.headers['retry-after']);
    // Other budgets are separate: dispute submission is limited per key, not by this IP's reads.
    const partner = await fixturesOf(t).partner('limits');
    const dispute = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partner.apiKey).send({});
    expect(dispute.body.code).toBe(4000);
  });

  it('limits admin calls per credential, over every admin route together, however its Authorization header is spelled', async () => {
    const counts = (authorization: string) => t.http.get('/admin/disputes/counts').set('authorization', authorization);
    for (let n = 0; n < ADMIN_LIMIT; n++) expect((await counts(`Bearer ${MASTER}`)).body.code).toBe(0);
    // Each spelling had a budget of its own: "bearer", "BEARER", more spaces.
    for (const spelling of [`bearer ${MASTER}`, `BEARER ${MASTER}`, `Bearer  ${MASTER}`, `Bearer\t${MASTER} `]) {
      const limited = await counts(spelling);
      expect(limited.body).toEqual({ code: 4290, msg: 'too many requests', detail: expect.any(String) });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The budget is the credential's, not the route's.
    const other = await t.http.get('/admin/partners').set('authorization', `Bearer ${MASTER}`);
    expect(other.body.code).toBe(4290);
  });

  it('gives requests without a credential no budget: 4010 and 4012 however many, and keys keep their own', async () => {
    const submit = (apiKey?: string) => {
      const post = t.http.post('/oracle/markets/dispute/submit');
      return (apiKey === undefined ? post : post.set('x-api-key', apiKey)).send({});
    };
    // They once shared one budget, whoever sent them: past it, every client's were 4290.
    for (let n = 0; n < DISPUTE_LIMIT + 2; n++) {
      expect((await submit()).body.code).toBe(4010);
      expect((await submit('   ')).body.code).toBe(4010);
      expect((await t.http.get('/admin/reviewers')).body.code).toBe(4012);
    }
    const partner = await fixturesOf(t).partner('no-budget-shared');
    for (let n = 0; n < DISPUTE_LIMIT; n++) expect((await submit(partner.apiKey)).body.code).toBe(4000);
    expect((await submit(partner.apiKey)).body.code).toBe(4290);
  });

  it('documents every route the app serves in the OpenAPI document', async () => {
    const response = await t.http.get('/docs-json');
    expect(response.status).toBe(200);
    // Through the pipeline's middleware like any answer: it carries a request id.
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const documented = new Set(
      Object.entries(response.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      ),
    );
    const router = t.app.getHttpAdapter().getInstance().router as {
      stack: { route?: { path: string; methods: Record<string, boolean> } }[];
    };
    const served = router.stack
      .filter((layer) => layer.route)
      .flatMap((layer) => Object.keys(layer.route!.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path}`))
      .filter((route) => !route.includes('/docs') && !route.includes(' /back-office') && !route.includes('*'));
    expect(served.length).toBeGreaterThan(15);
    for (const route of served) expect(documented).toContain(route);
    expect(response.body.components.securitySchemes).toMatchObject({
      'partner-key': { type: 'apiKey', in: 'header', name: 'x-api-key' },
      'admin-key': { type: 'http', scheme: 'bearer' },
    });
    expect(response.body.info.description).toContain('| 4091 | market already has a dispute |');
  });

  it('documents the envelope, every field with an example, and the codes of each route', async () => {
    const { body: document } = await t.http.get('/docs-json');
    type Schema = { type?: string | string[]; example?: unknown; $ref?: string; items?: Schema; allOf?: Schema[]; properties?: Record<string, Schema> };
    const schemas = document.components.schemas as Record<string, Schema>;

    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      if (!path.startsWith('/oracle') && !path.startsWith('/admin')) continue;
      for (const [method, operation] of Object.entries(methods)) {
        const ok = operation.responses['200'];
        expect(ok.description).toMatch(/Error codes: `\d{4}`/);
        // Bodies are read on POST routes only.
        expect([method, path, ok.description.includes('`4001`')]).toEqual([method, path, method === 'post']);
        const [success, error] = ok.content['application/json'].schema.oneOf;
        expect(success.properties).toMatchObject({ code: { enum: [0] }, msg: { enum: ['success'] }, data: { $ref: expect.any(String) } });
        expect(error).toMatchObject({ title: `${operation.operationId}Error`, allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }] });
        const body = operation.requestBody?.content['application/json'].schema;
        if (body) expect(schemas[body.$ref.split('/').pop()].properties).toBeDefined();
      }
    }

    const missing: string[] = [];
    for (const [name, schema] of Object.entries(schemas)) {
      for (const [field, property] of Object.entries(schema.properties ?? {})) {
        const types = ([] as (string | undefined)[]).concat(property.type);
        const scalar = property.type !== undefined && !types.includes('array') && !types.includes('object');
        if (scalar && property.example === undefined) missing.push(`${name}.${field}`);
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(schemas['MarketItem'].properties!)).toEqual([
      'id', 'source', 'slug', 'status', 'verdict', 'resolved_at', 'confidence', 'reasoning', 'proofs', 'disputes',
    ]);
    expect(Object.keys(schemas['AdminDispute'].properties!).sort()).toEqual(
      ['id', 'status', 'submitter_selection', 'reason_text', 'submitted_at', 'decision', 'market_id', 'source', 'slug', 'verdict',
        'market_status', 'submitter_id', 'submitter_name'].sort(),
    );
    expect(schemas['SubmitDisputeDto'].properties!['market_id']).toMatchObject({
      oneOf: [{ type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, { type: 'string', maxLength: 20, pattern: decimalsUpTo(Number.MAX_SAFE_INTEGER, { leadingZeros: true }) }],
      example: 2,
    });
  });

  it('sets security headers on API routes', async () => {
    const response = await t.http.get('/oracle/markets/public?slug=x&source=y');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('lets an in-flight request finish when the app closes', async () => {
    const { createApp } = await import('../src/create-app');
    const closing = await createApp();
    // A dispute (its key has a budget of its own: this address spent its public reads above).
    const partner = await fixturesOf(t).partner('closing');
    await closing.listen(0);
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE markets IN ACCESS EXCLUSIVE MODE');
    const inFlight = request(closing.getHttpServer())
      .post('/oracle/markets/dispute/submit')
      .set('x-api-key', partner.apiKey)
      .send({ market_id: 999999, submitter_id: 'u', submitter_name: 'U', submitter_selection: 'NO', reason_text: 'r' });
    const pending = inFlight.then((response) => response);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closed = closing.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await blocker.query('ROLLBACK');
    await blocker.end();
    const response = await pending;
    await closed;
    expect(response.body).toEqual({ code: 4040, msg: 'market not found', detail: 'market not found' });
  });
});
