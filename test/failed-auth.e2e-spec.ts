import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ThrottlerStorage } from '@nestjs/throttler';
import { randomBytes } from 'node:crypto';
import type { MemoryThrottlerStorage } from '../src/rate-limits/memory-throttler-storage';
import { startTestApp, type TestApp } from './support/test-app';

const FAILURES_PER_MINUTE = 5;
const SUBMIT = '/oracle/markets/dispute/submit';
const REFUSAL = { code: 4290, msg: 'too many requests', detail: 'too many failed authentications from this address' };
const guess = () => randomBytes(24).toString('hex');

/**
 * Failed authentications per client IP: past the limit, an address that sends credentials is
 * refused before the rate limits count them, so a stream of guesses from it neither reaches the
 * database nor takes a rate-limit window per guess (a window per distinct credential once grew
 * the heap until the process died).
 */
describe('failed authentications', () => {
  let t: TestApp;
  let storage: MemoryThrottlerStorage;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: String(FAILURES_PER_MINUTE) });
    storage = t.app.get(ThrottlerStorage);
  });

  afterAll(async () => {
    await t.close();
  });

  it('refuses an address past its limit before counting its guesses, and still answers a request without credentials 4010', async () => {
    // The failure that reaches the limit is the last one looked up: it blocks the address.
    for (let i = 0; i < FAILURES_PER_MINUTE; i++) {
      const failed = await t.http.post(SUBMIT).set('x-api-key', `sok_${guess()}`).send({});
      expect(failed.body.code).toBe(4011);
    }
    const windows = storage.size;
    for (let i = 0; i < 40; i++) {
      const partner = await t.http.post(SUBMIT).set('x-api-key', `sok_${guess()}`).send({});
      expect(partner.body).toEqual(REFUSAL);
      expect(Number(partner.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const admin = await t.http.get('/admin/disputes').set('authorization', `Bearer soa_${guess()}`);
      expect(admin.body).toEqual(REFUSAL);
    }
    expect(storage.size).toBe(windows);

    const withoutKey = await t.http.post(SUBMIT).send({});
    expect(withoutKey.body).toEqual({ code: 4010, msg: 'api key is required', detail: 'api key is required' });
    const withoutBearer = await t.http.get('/admin/disputes');
    expect(withoutBearer.body.code).toBe(4012);
  });
});
