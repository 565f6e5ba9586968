import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { HttpClient, type HttpResult, runPool } from './support/http-client';
import { countCodes, expectNo5000, type HostileServer, percentile, startHostileServer, underAttack } from './support/hostile';
import { disputeBody } from './support/seed';
import { ADMIN_MASTER_KEY } from './support/server-process';

const AUTH_FAILURES_PER_MINUTE = 30; // RATE_LIMIT_AUTH_FAILURES_PER_MINUTE's default
const STORM_REQUESTS = 3_000;
const STORM_CONCURRENCY = 20;
const WIDE_BODIES = 300;
const WIDE_FIELDS = 6_000;
/**
 * The original took 1.0-1.2 s to refuse one such body; linear validation takes milliseconds
 * (p99 15-33 ms on the slowest machine seen, the innocent client's requests running alongside).
 */
const WIDE_BODY_P99_BOUND_MS = 250;

const AUTH_FAILURES_REFUSAL = { code: 4290, msg: 'too many requests', detail: 'too many failed authentications from this address' };

const times = (results: HttpResult[]) =>
  results.length === 0 ? 'none' : `p50 ${percentile(results.map((r) => r.ms), 50).toFixed(1)} / p99 ${percentile(results.map((r) => r.ms), 99).toFixed(1)} ms`;

/**
 * Requests built to cost the server: a body of 6,000 unknown fields, a storm of failed
 * authentications from one address, and a query of more than 1,000 parameters. Each is refused
 * quickly, without the work it asks for, and the innocent client is served meanwhile.
 */
describe('faults: costly requests', () => {
  let h: HostileServer;
  /** A client from its own address (127.0.0.x): per-IP budgets are the attacker's, not the innocent's. */
  const clientFrom = (address: string) => h.track(new HttpClient(h.server.http.baseUrl, address))[0];

  beforeAll(async () => {
    h = await startHostileServer({ name: 'requests-server', postgresSettings: { shared_preload_libraries: 'pg_stat_statements' } });
    await h.dataSource.query('CREATE EXTENSION pg_stat_statements');
  });

  afterAll(async () => {
    await h?.stop();
  });

  /** The statements that looked up partner keys (several keys of a turn share one) and admin bearers (one each). */
  async function credentialLookups(): Promise<{ partner: number; admin: number }> {
    const [counts] = await h.dataSource.query(
      `SELECT coalesce(sum(s.calls) FILTER (WHERE s.query LIKE '%FROM api_keys k JOIN partners p ON%'), 0)::int AS partner,
              coalesce(sum(s.calls) FILTER (WHERE s.query ~ 'FROM "?reviewers"?.*key_hash'), 0)::int AS admin
        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database()`,
    );
    return counts;
  }

  it('refuses a body of 6,000 unknown fields with 4000 in milliseconds, naming 10 of them', async () => {
    const s = h.server;
    const wide = Object.fromEntries(Array.from({ length: WIDE_FIELDS }, (_, i) => [`f${i}`, 0]));
    const size = Buffer.byteLength(JSON.stringify(wide));
    const attacker = clientFrom('127.0.0.6');
    const attack = await underAttack(s, h.innocent, () =>
      runPool(
        Array.from({ length: WIDE_BODIES }, () => () =>
          attacker.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': h.cached.apiKey }, body: wide }),
        ),
        1,
      ),
    );
    const answers = attack.outcome;
    for (const answer of answers) {
      expect(answer.body).toMatchObject({ code: 4000, msg: 'invalid request' });
      expect(answer.body.detail).toBe(answers[0].body.detail);
    }
    const detail: string = answers[0].body.detail;
    const listed = detail.split('; ').filter((problem) => !problem.startsWith('and '));
    expect(listed).toHaveLength(10);
    expect(detail).toMatch(/; and \d+ more$/);
    expect(detail.length).toBeLessThan(1_000);
    expect(percentile(answers.map((a) => a.ms), 99)).toBeLessThan(WIDE_BODY_P99_BOUND_MS);
    await expectNo5000(s);
    console.log(
      [
        `Bodies of ${WIDE_FIELDS} unknown fields (${(size / 1024).toFixed(0)} KB), ${WIDE_BODIES} sent one after another with a valid key:`,
        `  ${attack.summary}`,
        `  ${countCodes(answers.map((a) => a.body))}, each in ${times(answers)} (max ${Math.max(...answers.map((a) => a.ms)).toFixed(1)} ms); detail ${detail.length} characters: "${detail.slice(0, 80)}..."`,
      ].join('\n'),
    );
  });

  it('after 30 failed authentications from one address, refuses it 4290 with Retry-After and without a lookup; other addresses are served', async () => {
    const s = h.server;
    const storm = clientFrom('127.0.0.4');
    const lookupsBefore = await credentialLookups();
    const attack = await underAttack(s, h.innocent, () =>
      runPool(
        Array.from({ length: STORM_REQUESTS }, (_, i) => () =>
          i % 2 === 0
            ? storm.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': `sok_${randomBytes(24).toString('hex')}` }, body: disputeBody(h.cached.id) })
            : storm.request('GET', '/admin/disputes', { headers: { authorization: `Bearer ${randomBytes(24).toString('hex')}` } }),
        ),
        STORM_CONCURRENCY,
      ),
    );
    const lookupsAfter = await credentialLookups();
    const lookups = { partner: lookupsAfter.partner - lookupsBefore.partner, admin: lookupsAfter.admin - lookupsBefore.admin };
    const answers = attack.outcome;
    const failed = answers.filter((a) => a.body.code === 4011 || a.body.code === 4012);
    const refused = answers.filter((a) => a.body.code === 4290);
    expect(failed.length + refused.length).toBe(STORM_REQUESTS);
    // Each failure counted; those already past the check when the 30th was counted fail too.
    expect(failed.length).toBeGreaterThanOrEqual(AUTH_FAILURES_PER_MINUTE);
    expect(failed.length).toBeLessThanOrEqual(AUTH_FAILURES_PER_MINUTE + STORM_CONCURRENCY);
    for (const answer of refused) {
      expect(answer.body).toEqual(AUTH_FAILURES_REFUSAL);
      expect(Number(answer.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(answer.headers?.['retry-after'])).toBeLessThanOrEqual(60);
    }
    // A lookup for each failure and for each of the innocent client's disputes (a valid key): none
    // for a refusal. An admin bearer's is a statement of its own; partner keys of one turn share one.
    const innocentDisputes = [...attack.before, ...attack.during].filter((x) => x.request.label === 'dispute').length;
    const failedAdmin = failed.filter((a) => a.body.code === 4012).length;
    expect(lookups.admin).toBe(failedAdmin);
    expect(lookups.partner).toBeGreaterThan(0);
    expect(lookups.partner).toBeLessThanOrEqual(failed.length - failedAdmin + innocentDisputes);

    // The address stays refused, valid credentials included (before any lookup); another one is served.
    const blocked = await storm.request('GET', '/admin/disputes', { headers: { authorization: `Bearer ${ADMIN_MASTER_KEY}` } });
    expect(blocked.body).toEqual(AUTH_FAILURES_REFUSAL);
    const validKey = await storm.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': h.cached.apiKey }, body: disputeBody(h.disputed.id) });
    expect(validKey.body).toEqual(AUTH_FAILURES_REFUSAL);
    const other = clientFrom('127.0.0.5');
    const admin = await other.request('GET', '/admin/disputes', { headers: { authorization: `Bearer ${ADMIN_MASTER_KEY}` } });
    expect(admin.body.code).toBe(0);
    const partner = await other.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': h.disputed.apiKey }, body: disputeBody(h.disputed.id) });
    expect(partner.body.code).toBe(4091);
    await expectNo5000(s);
    console.log(
      [
        `Failed-authentication storm (${STORM_REQUESTS} random partner keys and admin bearers from one address, ${STORM_CONCURRENCY} at a time):`,
        `  ${attack.summary}`,
        `  ${countCodes(answers.map((a) => a.body))}; failures ${times(failed)}, refusals ${times(refused)}`,
        `  credential lookups in the database (pg_stat_statements): ${lookups.admin} for ${failedAdmin} failed admin bearers, ` +
          `${lookups.partner} statements for ${failed.length - failedAdmin} failed partner keys + ${innocentDisputes} innocent disputes, 0 for the ${refused.length} refusals`,
      ].join('\n'),
    );
  });

  it('refuses a query of more than 1,000 parameters with 4000 naming the limit, and reads one of 1,000 whole', async () => {
    const s = h.server;
    const query = (count: number) => [...Array.from({ length: count - 2 }, (_, i) => `p${i}=1`), `source=${h.cached.source}`, `slug=${h.cached.slug}`].join('&');
    const over = await s.http.request('GET', `/oracle/markets/public?${query(1_001)}`);
    expect(over.body).toEqual({ code: 4000, msg: 'invalid request', detail: 'a query may hold at most 1000 parameters' });
    // 1,000 are read whole: the 998 unknown ones counted (ten named), slug and source after them read (no 4100).
    const at = await s.http.request('GET', `/oracle/markets/public?${query(1_000)}`);
    expect(at.body).toMatchObject({ code: 4000, msg: 'invalid request' });
    expect(at.body.detail).toMatch(/^p0 is not a known parameter; (p\d+ is not a known parameter; ){9}and 988 more$/);
    console.log(
      `Query parameters: 1,001 -> 4000 "${over.body.detail}" in ${over.ms.toFixed(1)} ms; ` +
        `1,000 (998 unknown, slug and source last) -> 4000 naming 10 and counting 988 (detail ${at.body.detail.length} characters) in ${at.ms.toFixed(1)} ms`,
    );
  });
});
