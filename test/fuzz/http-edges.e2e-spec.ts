/** Fuzzing the HTTP edges: header values the client must refuse (see test/support/fuzz-suite.ts). */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { LEGAL_HEADER_VALUE } from '../support/fuzz-arbitraries';
import { fuzzSuite, runs, SEED, SUBMIT, timeout } from '../support/fuzz-suite';

describe('fuzzing the HTTP edges', () => {
  const suite = fuzzSuite();
  const { judge, fuzzCase, expectStillServing } = suite;

  it('the HTTP client refuses header values that are not legal HTTP before anything is sent', async () => {
    const unicodeValue = fc.string({ unit: fc.oneof(fc.constantFrom('a', ' '), fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code))), minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(unicodeValue, fc.constantFrom('x-api-key', 'authorization'), fuzzCase(async (value, header) => {
        const path = header === 'x-api-key' ? SUBMIT : '/admin/disputes';
        let response;
        try {
          const call = header === 'x-api-key' ? suite.t.http.post(path).send({}) : suite.t.http.get(path);
          response = await call.set(header, value);
        } catch (error) {
          // Not HTTP: Node's client rejects it; the server never sees the request.
          expect(LEGAL_HEADER_VALUE.test(value)).toBe(false);
          expect((error as { code?: string }).code).toBe('ERR_INVALID_CHAR');
          return;
        }
        expect(LEGAL_HEADER_VALUE.test(value)).toBe(true);
        const expected = header === 'x-api-key' ? [value.trim() ? 4011 : 4010] : [4012];
        await judge('client-headers', { status: response.status, headers: response.headers as Record<string, string>, body: response.text }, expected);
      })),
      { seed: SEED + 3, numRuns: runs(150) },
    );
    await expectStillServing();
  }, timeout(150));
});
