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
});
