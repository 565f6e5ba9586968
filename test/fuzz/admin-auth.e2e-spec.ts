/** Fuzzing /admin without valid credentials, or as a reviewer on admin-only routes (see test/support/fuzz-suite.ts). */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { headerValue } from '../support/fuzz-arbitraries';
import { ADMIN_ONLY, fuzzSuite, MASTER, runs, SEED, timeout } from '../support/fuzz-suite';

describe('fuzzing /admin without credentials', () => {
  const suite = fuzzSuite();
  const { judge, fuzzCase, expectStillServing, adminCall, sendAdmin } = suite;

  it('/admin: without valid credentials, or as a reviewer on admin-only routes, nothing but 4012 / 4031 / 4044', async () => {
    const credential = fc.oneof(
      fc.constantFrom(
        undefined,
        '',
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from(`x:${MASTER}`).toString('base64')}`,
        MASTER,
        `Bearer ${MASTER} x`,
        `Bearer ${MASTER}x`,
        `Bearer ${MASTER.slice(0, -1)}`,
        `Bearer ${MASTER.toUpperCase()}`,
        `Bearer ${suite.revokedAdminKey}`,
        `Bearer ${suite.acmeKey}`,
        `Bearer ${suite.adminKey}, Bearer ${suite.adminKey}`,
        `Token ${suite.adminKey}`,
      ),
      headerValue,
      headerValue.map((value) => `Bearer ${value}`),
      fc.constant(`Bearer ${suite.reviewerKey}`),
      fc.constant(`bearer \t${suite.reviewerKey}  `),
    );
    await fc.assert(
      fc.asyncProperty(
        adminCall(true).filter((call) => Object.values(call.params).every((value) => value !== undefined)),
        credential,
        fuzzCase(async (call, authorization) => {
          const match = /^Bearer\s+(\S+)\s*$/i.exec((authorization ?? '').trim());
          const isReviewer = match?.[1] === suite.reviewerKey;
          if (match?.[1] === MASTER || match?.[1] === suite.adminKey) throw new Error('the generator made a valid admin credential');
          const code = call.route === 'unknown' ? 4044 : !isReviewer ? 4012 : ADMIN_ONLY.has(call.route) ? 4031 : undefined;
          if (code === undefined) return; // a reviewer on a reviewer route: the next property's business
          await judge('admin-auth', await sendAdmin(call, authorization), [code]);
        }),
      ),
      { seed: SEED + 4, numRuns: runs(600) },
    );
    await expectStillServing();
  }, timeout(600));
});
