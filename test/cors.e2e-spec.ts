import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Fixtures } from './support/fixtures';
import { fixturesOf, startTestApp, type TestApp } from './support/test-app';

const ORIGIN = 'https://partner.example';

/** With CORS_ORIGINS set, every answer carries the CORS headers, cached public reads included. */
describe('CORS', () => {
  let t: TestApp;
  let fixtures: Fixtures;

  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: `${ORIGIN}, https://other.example`, PUBLIC_CACHE_TTL_MS: '60000' });
    fixtures = fixturesOf(t);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('allows the configured origins on every read of a public record, cached or not', async () => {
    const { source } = await fixtures.partner('cors-partner');
    const market = await fixtures.market(source);
    const path = `/oracle/markets/public?slug=${market.slug}&source=${source}`;
    for (let i = 0; i < 3; i++) {
      const response = await t.http.get(path).set('origin', ORIGIN);
      expect(response.body.code).toBe(0);
      expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(response.headers.vary).toBe('Origin');
    }
    const stranger = await t.http.get(path).set('origin', 'https://stranger.example');
    expect(stranger.body.code).toBe(0);
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    const withoutOrigin = await t.http.get(path);
    expect(withoutOrigin.headers.vary).toBe('Origin');
  });

  it('answers a preflight in the envelope inside the pipeline (request id, security headers, log line and metrics); any other OPTIONS is 4044', async () => {
    for (const path of ['/oracle/markets/dispute/submit', '/nowhere']) {
      const preflight = await t.http
        .options(path)
        .set('origin', ORIGIN)
        .set('access-control-request-method', 'POST')
        .set('access-control-request-headers', 'content-type, x-api-key');
      expect(preflight.status).toBe(200);
      expect(preflight.text).toBe('{"code":0,"msg":"success","data":{}}');
      expect(preflight.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(preflight.headers['access-control-allow-headers']).toBe('content-type, x-api-key');
      expect(preflight.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(preflight.headers['x-content-type-options']).toBe('nosniff');
    }
    // An origin not allowed: the same answer without Access-Control-Allow-Origin, which the browser refuses.
    const stranger = await t.http.options('/oracle/markets/dispute/submit').set('origin', 'https://stranger.example').set('access-control-request-method', 'POST');
    expect([stranger.status, stranger.text]).toEqual([200, '{"code":0,"msg":"success","data":{}}']);
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    expect(await t.metrics()).toMatch(/oracle_http_requests_total\{method="OPTIONS",route="unmatched",code="0"\} 3$/m);
    for (const headers of [{}, { origin: ORIGIN }, { 'access-control-request-method': 'POST' }]) {
      const options = await t.http.options('/oracle/markets/public').set(headers);
      expect(options.status).toBe(200);
      expect(options.body).toEqual({ code: 4044, msg: 'not found', detail: expect.any(String) });
      expect(options.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
