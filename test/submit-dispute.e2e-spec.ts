import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { PartnerKeysService } from '../src/auth/partner-keys.service';
import { hashKey } from '../src/auth/key-hashing';
import { Sql } from '../src/database/sql';
import type { Fixtures } from './support/fixtures';
import { fixturesOf, startTestApp, type TestApp } from './support/test-app';

const SUBMIT = '/oracle/markets/dispute/submit';

function disputeBody(marketId: number | string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    market_id: marketId,
    submitter_id: 'user-42',
    submitter_name: 'Grace',
    submitter_selection: 'NO',
    reason_text: 'The official source was corrected after resolution.',
    submitted_at: '2026-11-02T09:30:00Z',
    ...overrides,
  };
}

const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });

describe('POST /oracle/markets/dispute/submit', () => {
  let t: TestApp;
  let fixtures: Fixtures;
  let acme: { source: string; apiKey: string; keyId: string };
  let globex: { source: string; apiKey: string; keyId: string };

  beforeAll(async () => {
    t = await startTestApp();
    fixtures = fixturesOf(t);
    acme = await fixtures.partner('acme');
    globex = await fixtures.partner('globex');
  });

  afterAll(async () => {
    await t.close();
  });

  const submit = (apiKey: string | undefined, body: unknown) => {
    const call = t.http.post(SUBMIT);
    if (apiKey !== undefined) call.set('x-api-key', apiKey);
    return typeof body === 'string' ? call.set('content-type', 'application/json').send(body) : call.send(body as object);
  };

  it('files a dispute on a resolved market and moves it to disputed', async () => {
    const market = await fixtures.market('acme');
    const response = await submit(acme.apiKey, disputeBody(market.id));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ code: 0, msg: 'success', data: { dispute_id: expect.any(Number) } });
    const [row] = await t.dataSource.query('SELECT * FROM disputes WHERE id = $1', [response.body.data.dispute_id]);
    expect(row).toMatchObject({
      market_id: String(market.id),
      status: 'open',
      submitter_id: 'user-42',
      submitter_name: 'Grace',
      submitter_selection: 'NO',
      decision_type: null,
    });
    expect(row.submitted_at.toISOString()).toBe('2026-11-02T09:30:00.000Z');
    const [{ status }] = await t.dataSource.query('SELECT status FROM markets WHERE id = $1', [market.id]);
    expect(status).toBe('disputed');
  });

  it('accepts market_id as a string of digits and trims the text fields', async () => {
    const market = await fixtures.market('acme');
    const response = await submit(acme.apiKey, disputeBody(String(market.id), { submitter_name: '  Grace  ' }));
    expect(response.body.code).toBe(0);
    const [row] = await t.dataSource.query('SELECT submitter_name FROM disputes WHERE market_id = $1', [market.id]);
    expect(row.submitter_name).toBe('Grace');
  });

  it.each([
    ['omitted', undefined],
    ['not a timestamp', 'last tuesday'],
    ['not RFC 3339', '2026-11-02 09:30'],
    ['an impossible date', '2026-02-30T10:00:00Z'],
    ['a number', 1767225600],
  ])('uses the server time when submitted_at is %s', async (_, submittedAt) => {
    const market = await fixtures.market('acme');
    const before = Date.now();
    const response = await submit(acme.apiKey, disputeBody(market.id, { submitted_at: submittedAt }));
    expect(response.body.code).toBe(0);
    const [row] = await t.dataSource.query('SELECT submitted_at FROM disputes WHERE market_id = $1', [market.id]);
    expect(row.submitted_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.submitted_at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  describe('authentication (checked first)', () => {
    it('4010 without x-api-key, or with an empty one, even with a bad body', async () => {
      expect((await submit(undefined, disputeBody(1))).body).toEqual(error(4010, 'api key is required'));
      expect((await submit('   ', disputeBody(1))).body).toEqual(error(4010, 'api key is required'));
      expect((await submit(undefined, '{not json')).body).toEqual(error(4010, 'api key is required'));
    });

    it('4011 with an unknown key', async () => {
      expect((await submit('sok_not-a-real-key', disputeBody(1))).body).toEqual(error(4011, 'invalid api key'));
      expect((await submit('sok_not-a-real-key', '{not json')).body).toEqual(error(4011, 'invalid api key'));
    });

    it('4011 with a revoked key, at once', async () => {
      const partner = await fixtures.partner('revoked-co');
      const market = await fixtures.market('revoked-co');
      await t.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [partner.keyId]);
      expect((await submit(partner.apiKey, disputeBody(market.id))).body).toEqual(error(4011, 'invalid api key'));
    });

    it('looks up the keys of one turn of the event loop by one statement, each answered as its own', async () => {
      const revoked = await fixtures.partner('revoked-too');
      await t.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.keyId]);
      const keys = [acme.apiKey, 'sok_not-a-real-key', globex.apiKey, revoked.apiKey, acme.apiKey];
      const sql = t.app.get(Sql);
      const rows = jest.spyOn(sql, 'rows');
      try {
        const holders = await Promise.all(keys.map((key) => t.app.get(PartnerKeysService).authenticate(hashKey(key))));
        expect(rows.mock.calls.filter(([statement]) => statement.text.includes('key_hash'))).toHaveLength(1);
        expect(holders.map((holder) => holder?.source ?? null)).toEqual(['acme', null, 'globex', null, 'acme']);
        expect(holders[0]?.keyId).toBe(String(acme.keyId));
      } finally {
        rows.mockRestore();
      }
    });
  });

  describe('body validation', () => {
    it('4001 for malformed JSON', async () => {
      expect((await submit(acme.apiKey, '{"market_id": 1,')).body).toEqual(error(4001, 'malformed JSON body'));
    });

    it('4001 for no body, an empty one or a byte order mark alone: no JSON object', async () => {
      const none = await t.http.post(SUBMIT).set('x-api-key', acme.apiKey);
      expect(none.body).toEqual(error(4001, 'malformed JSON body', 'the body must be a JSON object'));
      for (const empty of ['', '\uFEFF']) {
        expect((await submit(acme.apiKey, empty)).body).toEqual(error(4001, 'malformed JSON body', 'the body must be a JSON object'));
      }
    });

    it('4000 for a query parameter: the route takes none', async () => {
      const market = await fixtures.market('acme');
      const response = await t.http.post(`${SUBMIT}?market_id=${market.id}`).set('x-api-key', acme.apiKey).send(disputeBody(market.id));
      expect(response.body).toEqual(error(4000, 'invalid request', 'market_id is not a known field'));
    });

    it.each([['[1, 2]'], ['"a string"'], ['42'], ['null']])('4001 for a body that is not an object: %s', async (body) => {
      expect((await submit(acme.apiKey, body)).body).toEqual(
        error(4001, 'malformed JSON body', 'the body must be a JSON object'),
      );
    });

    it('4000 naming every missing field for an empty body', async () => {
      expect((await submit(acme.apiKey, {})).body).toEqual(
        error(
          4000,
          'invalid request',
          'market_id is required; submitter_id is required; submitter_name is required; ' +
            'submitter_selection is required; reason_text is required',
        ),
      );
    });

    it('4000 naming every offending field, including unknown ones', async () => {
      const response = await submit(acme.apiKey, {
        market_id: -3,
        submitter_id: '   ',
        submitter_name: 7,
        submitter_selection: 'YES',
        reason_text: 'x'.repeat(4001),
        extra: true,
      });
      expect(response.body).toEqual(
        error(
          4000,
          'invalid request',
          'extra is not a known field; ' +
            'market_id must be a positive integer no greater than 9007199254740991; ' +
            'submitter_id must be a non-empty string of at most 128 characters; ' +
            'submitter_name must be a non-empty string of at most 200 characters; ' +
            'reason_text must be a non-empty string of at most 4000 characters',
        ),
      );
    });

    it('counts a length cap in code points, as the OpenAPI document does: a variation selector is a character', async () => {
      const market = await fixtures.market('acme');
      // 2,000 emoji with their variation selectors: 4,000 code points (6,000 UTF-16 units) fit 4000.
      const fits = await submit(acme.apiKey, disputeBody(market.id, { reason_text: '\u{1F600}\uFE0F'.repeat(2000) }));
      expect(fits.body.code).toBe(0);
      const over = await submit(acme.apiKey, disputeBody(market.id, { reason_text: '\u{1F600}\uFE0F'.repeat(2000) + 'x', submitter_selection: '\u{1F600}\uFE0F'.repeat(101) }));
      expect(over.body).toEqual(
        error(
          4000,
          'invalid request',
          'submitter_selection must be a non-empty string of at most 200 characters; reason_text must be a non-empty string of at most 4000 characters',
        ),
      );
    });

    it.each([
      ['above 2^53-1', '9007199254740993'],
      ['2^53 as a number', 9007199254740992],
      ['zero', 0],
      ['a fraction', 1.5],
      ['a numeric string with a sign', '+12'],
      ['a boolean', true],
      ['an object', { id: 1 }],
    ])('4000 for market_id %s', async (_, marketId) => {
      expect((await submit(acme.apiKey, disputeBody(1, { market_id: marketId }))).body).toEqual(
        error(4000, 'invalid request', 'market_id must be a positive integer no greater than 9007199254740991'),
      );
    });

    it.each([
      ['0.9999999999999999999999', 'JSON.parse reads it as 1'],
      ['1.0000000000000000001', 'JSON.parse reads it as 1'],
      ['1e-400', 'JSON.parse reads it as 0'],
    ])('4000 for market_id %s, a fraction %s: refused, not rounded', async (literal) => {
      const market = await fixtures.market('acme');
      const body = JSON.stringify(disputeBody(market.id)).replace(`"market_id":${market.id}`, `"market_id":${literal}`);
      expect((await submit(acme.apiKey, body)).body).toEqual(
        error(4000, 'invalid request', 'market_id must be a positive integer no greater than 9007199254740991'),
      );
      // An integer written with a fraction or an exponent is that integer.
      const exact = JSON.stringify(disputeBody(market.id)).replace(`"market_id":${market.id}`, `"market_id":${market.id}.000e0`);
      expect((await submit(acme.apiKey, exact)).body.code).toBe(0);
    });

    it('4000 rather than 4040 when validation fails: nothing is written', async () => {
      const market = await fixtures.market('acme');
      const response = await submit(acme.apiKey, disputeBody(market.id, { reason_text: '' }));
      expect(response.body.code).toBe(4000);
      const [{ count }] = await t.dataSource.query('SELECT count(*)::int AS count FROM disputes WHERE market_id = $1', [
        market.id,
      ]);
      expect(count).toBe(0);
    });
  });

  describe('business rules, in the contract order', () => {
    it('4040 for an unknown market', async () => {
      expect((await submit(acme.apiKey, disputeBody(987654321))).body).toEqual(error(4040, 'market not found'));
    });

    it("4030 for another partner's market, whatever its state", async () => {
      const resolved = await fixtures.market('globex');
      const monitoring = await fixtures.market('globex', { status: 'monitoring' });
      for (const market of [resolved, monitoring]) {
        expect((await submit(acme.apiKey, disputeBody(market.id))).body).toEqual(
          error(4030, 'market belongs to another source'),
        );
      }
      const [{ count }] = await t.dataSource.query('SELECT count(*)::int AS count FROM disputes WHERE market_id = $1', [
        resolved.id,
      ]);
      expect(count).toBe(0);
    });

    it('4091 for a second dispute, also once the market is closed', async () => {
      const market = await fixtures.market('globex');
      expect((await submit(globex.apiKey, disputeBody(market.id))).body.code).toBe(0);
      expect((await submit(globex.apiKey, disputeBody(market.id))).body).toEqual(
        error(4091, 'market already has a dispute'),
      );
      await t.dataSource.query(
        `UPDATE disputes SET status = 'closed', decision_type = 'keep', partner_final_verdict = 'YES',
           decision_reason = 'ok', decided_at = now(), decided_by = 'r' WHERE market_id = $1`,
        [market.id],
      );
      await t.dataSource.query(`UPDATE markets SET status = 'closed' WHERE id = $1`, [market.id]);
      expect((await submit(globex.apiKey, disputeBody(market.id))).body).toEqual(
        error(4091, 'market already has a dispute'),
      );
    });

    it('4090 for a market that is not resolved', async () => {
      const market = await fixtures.market('acme', { status: 'monitoring' });
      expect((await submit(acme.apiKey, disputeBody(market.id))).body).toEqual(error(4090, 'market is not resolved'));
      const [{ status }] = await t.dataSource.query('SELECT status FROM markets WHERE id = $1', [market.id]);
      expect(status).toBe('monitoring');
    });
  });

  it('lets exactly one of 50 concurrent submissions win', async () => {
    const market = await fixtures.market('acme');
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => submit(acme.apiKey, disputeBody(market.id, { submitter_id: `racer-${i}` }))),
    );
    const codes = responses.map((response) => response.body.code);
    expect(codes.filter((code) => code === 0)).toHaveLength(1);
    expect(codes.filter((code) => code === 4091)).toHaveLength(49);
    for (const response of responses.filter((r) => r.body.code === 4091)) {
      expect(response.body).toEqual(error(4091, 'market already has a dispute'));
    }
    const winner = responses.find((response) => response.body.code === 0)!;
    const rows = await t.dataSource.query('SELECT id FROM disputes WHERE market_id = $1', [market.id]);
    expect(rows).toEqual([{ id: String(winner.body.data.dispute_id) }]);
  });

  it('4091 for a market whose dispute row was written without moving it to disputed: the check reads the disputes, not the status', async () => {
    const market = await fixtures.market('acme');
    await t.dataSource.query(
      `INSERT INTO disputes (market_id, submitter_id, submitter_name, submitter_selection, reason_text, submitted_at)
       VALUES ($1, 'u', 'n', 'NO', 'r', now())`,
      [market.id],
    );
    expect((await submit(acme.apiKey, disputeBody(market.id))).body).toEqual(error(4091, 'market already has a dispute'));
  });

  it('answers 4091 when the unique constraint refuses the insert: a dispute written around the lock, committed while the filing waited', async () => {
    const market = await fixtures.market('acme');
    const bypass = new pg.Client({ connectionString: t.databaseUrl });
    await bypass.connect();
    try {
      await bypass.query('BEGIN');
      // Without its foreign key's share lock on the market, which would hold the filing at its lock.
      await bypass.query('SET LOCAL session_replication_role = replica');
      await bypass.query(
        `INSERT INTO disputes (market_id, submitter_id, submitter_name, submitter_selection, reason_text, submitted_at)
         VALUES ($1, 'u', 'n', 'NO', 'r', now())`,
        [market.id],
      );
      // The filing passes its checks (the row is not committed yet) and waits on the constraint.
      const filing = submit(acme.apiKey, disputeBody(market.id)).then((response) => response);
      // Read outside the open transaction, which would see one snapshot of pg_stat_activity.
      for (let waiting = 0; waiting === 0; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO disputes%'`);
        waiting = count;
      }
      await bypass.query('COMMIT');
      expect((await filing).body).toEqual(error(4091, 'market already has a dispute'));
    } finally {
      await bypass.end();
    }
    const [{ status }] = await t.dataSource.query('SELECT status FROM markets WHERE id = $1', [market.id]);
    expect(status).toBe('resolved');
  });
});
