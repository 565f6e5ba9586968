import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response, Test } from 'supertest';
import type { Fixtures } from './support/fixtures';
import { stableHeaders as stableHeadersOf, watchPipeline } from './support/pipeline-watch';
import { fixturesOf, startTestApp, type TestApp } from './support/test-app';

const LIMIT = 6;

/**
 * A plain public read is answered ahead of Express and Nest (src/markets/public-read-fast-path.ts),
 * from the cache or the database. These tests hold it to the pipeline's answer for
 * the same request: same headers in the same order, same bytes, same rate-limit budget; and
 * check that it leaves every other request to the pipeline. Each test reads as its own
 * client (X-Forwarded-For, with TRUST_PROXY on), so each has a fresh budget of LIMIT.
 */
describe('public read fast path', () => {
  let t: TestApp;
  let fixtures: Fixtures;
  let send: ReturnType<typeof watchPipeline>;
  let source: string;
  let clients = 0;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_PUBLIC_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true', PUBLIC_CACHE_TTL_MS: '60000' });
    fixtures = fixturesOf(t);
    ({ source } = await fixtures.partner('fast-path'));
    send = watchPipeline(t.app);
  });

  afterAll(async () => {
    await t?.close();
  });

  const newClient = () => `203.0.113.${++clients}`;

  const read = (client: string, query: string, requestId?: string) => {
    const request = t.http.get(`/oracle/markets/public?${query}`).set('x-forwarded-for', client);
    return send(requestId ? request.set('x-request-id', requestId) : request);
  };

  const stableHeaders = (response: Response) => stableHeadersOf(response, ['date', 'x-request-id', 'x-ratelimit-remaining']);

  /** The same read through the pipeline: with a trailing slash, the route is the same to Express. */
  const readByPipeline = (client: string, query: string, requestId?: string) => {
    const request = t.http.get(`/oracle/markets/public/?${query}`).set('x-forwarded-for', client);
    return send(requestId ? request.set('x-request-id', requestId) : request);
  };

  it('answers a read itself, from the database or the cache, with the pipeline\'s headers, in order, and bytes', async () => {
    const market = await fixtures.market(source, { proofs: 2 });
    const client = newClient();
    const query = `slug=${market.slug}&source=${source}`;

    const loaded = await read(client, query, 'trace-first'); // not cached yet
    const cached = await read(client, query, 'trace-second');
    const piped = await readByPipeline(client, query, 'trace-third');
    expect([loaded.byPipeline, cached.byPipeline, piped.byPipeline]).toEqual([false, false, true]);

    for (const fast of [loaded, cached]) {
      expect(fast.response.status).toBe(200);
      expect(fast.response.text).toBe(piped.response.text);
      expect(stableHeaders(fast.response)).toEqual(stableHeaders(piped.response));
    }
    expect(JSON.parse(piped.response.text)).toMatchObject({ code: 0, msg: 'success', data: { markets: [{ slug: market.slug }] } });
    expect(stableHeaders(piped.response)).toEqual(
      expect.arrayContaining(['Content-Type: application/json; charset=utf-8', `X-RateLimit-Limit: ${LIMIT}`, 'X-Frame-Options: SAMEORIGIN']),
    );
    expect([loaded, cached, piped].map((r) => r.response.headers['x-request-id'])).toEqual(['trace-first', 'trace-second', 'trace-third']);
    expect([loaded, cached, piped].map((r) => r.response.headers['x-ratelimit-remaining'])).toEqual(
      [1, 2, 3].map((used) => String(LIMIT - used)),
    );

    // An id that is not short and plain is replaced, as the pipeline does.
    const unsafe = await read(client, query, 'forged {"level":50} id');
    expect(unsafe.byPipeline).toBe(false);
    expect(unsafe.response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a market that does not exist, or not for that source, as the pipeline does', async () => {
    const market = await fixtures.market(source);
    for (const query of [`slug=no-such-market&source=${source}`, `slug=${market.slug}&source=no-such-source`]) {
      const client = newClient();
      const fast = await read(client, query);
      const piped = await readByPipeline(client, query);
      expect({ query, byPipeline: [fast.byPipeline, piped.byPipeline] }).toEqual({ query, byPipeline: [false, true] });
      expect(fast.response.text).toBe(piped.response.text);
      expect(stableHeaders(fast.response)).toEqual(stableHeaders(piped.response));
    }
  });

  it('reads the query as Express does: encoded, reordered and slash-wrapped forms of a record', async () => {
    const market = await fixtures.market(source);
    const client = newClient();
    const canonical = await readByPipeline(client, `slug=${market.slug}&source=${source}`);
    expect(canonical.byPipeline).toBe(true);
    for (const query of [
      `slug=${market.slug}&source=${source}`,
      `source=${source}&slug=${market.slug}`,
      `slug=${encodeURIComponent(`/${market.slug}/`)}&source=${source}`,
      `slug=${market.slug.replace(/-/g, '%2D')}&source=${source}`,
    ]) {
      const { response, byPipeline } = await read(client, query);
      expect({ query, byPipeline }).toEqual({ query, byPipeline: false });
      expect(response.text).toBe(canonical.response.text);
    }
  });

  it('counts into the pipeline\'s rate-limit budget, and leaves the 4290 to the pipeline', async () => {
    const market = await fixtures.market(source);
    const client = newClient();
    const query = `slug=${market.slug}&source=${source}`;
    const answers = [];
    for (let i = 0; i < LIMIT + 2; i++) answers.push(await read(client, query));

    expect(answers.map((a) => a.byPipeline)).toEqual([...Array(LIMIT).fill(false), true, true]);
    expect(answers.map((a) => a.response.body.code)).toEqual([...Array(LIMIT).fill(0), 4290, 4290]);
    expect(answers.map((a) => a.response.headers['x-ratelimit-remaining'])).toEqual([
      ...Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)),
      undefined,
      undefined,
    ]);
    const limited = answers[LIMIT].response;
    expect(limited.body).toEqual({ code: 4290, msg: 'too many requests', detail: 'too many requests' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    // The budget is the client's, as `trust proxy` sees it: another client is not limited.
    const other = await read(newClient(), query);
    expect({ code: other.response.body.code, byPipeline: other.byPipeline }).toEqual({ code: 0, byPipeline: false });
  });

  it('leaves every other request to the pipeline', async () => {
    const market = await fixtures.market(source);
    const query = `slug=${market.slug}&source=${source}`;
    expect((await read(newClient(), query)).response.body.code).toBe(0); // cached now
    const path = `/oracle/markets/public?${query}`;

    const cases: [string, () => Test, number | undefined][] = [
      ['unknown parameter', () => t.http.get(`${path}&page=2`), 4000],
      ['repeated parameter', () => t.http.get(`${path}&slug=${market.slug}`), 4000],
      ['no source', () => t.http.get(`/oracle/markets/public?slug=${market.slug}`), 4101],
      ['trailing slash', () => t.http.get(`/oracle/markets/public/?${query}`), 0],
      ['other letter case', () => t.http.get(`/Oracle/Markets/Public?${query}`), 0],
      ['a body', () => t.http.get(path).set('content-type', 'application/json').send('{"x":'), 4001],
      ['HEAD', () => t.http.head(path), undefined],
      ['POST', () => t.http.post(path), 4044],
    ];
    for (const [name, request, code] of cases) {
      const { response, byPipeline } = await send(request().set('x-forwarded-for', newClient()));
      expect({ name, byPipeline, status: response.status, code: response.body?.code }).toEqual({ name, byPipeline: true, status: 200, code });
    }
  });

  it('counts what it answers in the request and cache metrics', async () => {
    const market = await fixtures.market(source);
    const client = newClient();
    const query = `slug=${market.slug}&source=${source}`;
    await read(client, query);
    const metric = async (pattern: RegExp) => Number(pattern.exec((await t.http.get('/metrics')).text)?.[1] ?? 0);
    const requests = /oracle_http_requests_total\{method="GET",route="\/oracle\/markets\/public",code="0"\} (\d+)/;
    const hits = /oracle_public_cache_lookups_total\{result="hit"\} (\d+)/;
    const answered = /oracle_public_fast_path_total (\d+)/;
    const before = [await metric(requests), await metric(hits), await metric(answered)];
    for (let i = 0; i < 3; i++) expect((await read(client, query)).byPipeline).toBe(false);
    expect([await metric(requests), await metric(hits), await metric(answered)]).toEqual(before.map((count) => count + 3));
  });
});
