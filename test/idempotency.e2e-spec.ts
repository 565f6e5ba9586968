import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Fixtures } from './support/fixtures';
import { fixturesOf, NO_RATE_LIMITS, startTestApp, startTestAppOn, type TestApp } from './support/test-app';

const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });

/** Idempotent filing (contract §8): a partner that lost an answer retries with its key and learns the outcome. */
describe('submit_dispute with an Idempotency-Key', () => {
  let a: TestApp;
  let b: TestApp;
  let fixtures: Fixtures;
  let partner: { source: string; apiKey: string; keyId: string };
  let other: { source: string; apiKey: string };

  beforeAll(async () => {
    a = await startTestApp(NO_RATE_LIMITS);
    b = await startTestAppOn(a.databaseUrl);
    fixtures = fixturesOf(a);
    partner = await fixtures.partner('idem');
    other = await fixtures.partner('idem-other');
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const body = (marketId: number, extra: Record<string, unknown> = {}) => ({
    market_id: marketId,
    submitter_id: 'u-1',
    submitter_name: 'Ada',
    submitter_selection: 'NO',
    reason_text: 'The source was corrected.',
    ...extra,
  });
  const file = (app: TestApp, key: string | undefined, sent: object, apiKey = partner.apiKey) => {
    const request = app.http.post('/oracle/markets/dispute/submit').set('x-api-key', apiKey);
    if (key !== undefined) request.set('idempotency-key', key);
    return request.send(sent);
  };
  const disputesOf = async (marketId: number) =>
    Number((await a.dataSource.query('SELECT count(*)::int AS n FROM disputes WHERE market_id = $1', [marketId]))[0].n);

  it('answers the same body under the same key with the first answer, byte for byte, filing nothing new', async () => {
    const market = await fixtures.market(partner.source);
    const first = await file(a, 'order-1', body(market.id));
    expect(first.body).toEqual({ code: 0, msg: 'success', data: { dispute_id: expect.any(Number) } });
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same JSON value: members in another order, on another instance.
    const { market_id, ...rest } = body(market.id);
    for (const [app, sent] of [[a, body(market.id)], [b, { ...rest, market_id }]] as const) {
      const again = await file(app, 'order-1', sent);
      expect([again.text, again.headers['idempotent-replayed']]).toEqual([first.text, 'true']);
    }
    expect(await disputesOf(market.id)).toBe(1);
    // Without the key, the same filing is what it always was: 4091.
    expect((await file(a, undefined, body(market.id))).body).toEqual(error(4091, 'market already has a dispute'));
  });

  it('refuses the same key with another body (4095), and still replays it with its own', async () => {
    const market = await fixtures.market(partner.source);
    const first = await file(a, 'order-2', body(market.id));
    const changed = await file(b, 'order-2', body(market.id, { reason_text: 'Another reason.' }));
    expect(changed.body).toEqual(error(4095, 'idempotency key reused with a different request'));
    expect(changed.headers['idempotent-replayed']).toBeUndefined();
    expect((await file(a, 'order-2', body(market.id))).text).toBe(first.text);
  });

  it('keeps keys apart per source: another partner may use the same key', async () => {
    const mine = await fixtures.market(partner.source);
    const theirs = await fixtures.market(other.source);
    const first = await file(a, 'shared-key', body(mine.id));
    const second = await file(a, 'shared-key', body(theirs.id), other.apiKey);
    expect([first.body.code, second.body.code, second.headers['idempotent-replayed']]).toEqual([0, 0, undefined]);
    expect(second.body.data.dispute_id).not.toBe(first.body.data.dispute_id);
  });

  it("remembers the rule's refusals (4040, 4030, 4090, 4091), not what a retry may change (4000, 4011)", async () => {
    const refused = await file(a, 'order-3', body(987_654_321));
    expect(refused.body).toEqual(error(4040, 'market not found'));
    const replayed = await file(b, 'order-3', body(987_654_321));
    expect([replayed.text, replayed.headers['idempotent-replayed']]).toEqual([refused.text, 'true']);
    const monitoring = await fixtures.market(partner.source, { status: 'monitoring' });
    expect((await file(a, 'order-4', body(monitoring.id))).body).toEqual(error(4090, 'market is not resolved'));
    expect((await file(a, 'order-4', body(monitoring.id))).headers['idempotent-replayed']).toBe('true');

    // An invalid body is not remembered: the key then files the valid one.
    const market = await fixtures.market(partner.source);
    expect((await file(a, 'order-5', { market_id: market.id })).body.code).toBe(4000);
    expect((await file(a, 'order-5', body(market.id))).body.code).toBe(0);
    // A revoked key's 4011 is not remembered either (another key of the partner goes on).
    expect((await file(a, 'order-6', body(market.id), 'sok_not-a-key')).body).toEqual(error(4011, 'invalid api key'));
  });

  it('refuses an Idempotency-Key that is not 1 to 255 printable ASCII characters (4000)', async () => {
    const market = await fixtures.market(partner.source);
    for (const key of ['k'.repeat(256), 'caf\u00e9']) {
      expect((await file(a, key, body(market.id))).body).toEqual(
        error(4000, 'invalid request', 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once'),
      );
    }
    // Two header lines, which Node would hand over joined as one value, "order-7, order-8".
    const twice = await a.http
      .post('/oracle/markets/dispute/submit')
      .set('x-api-key', partner.apiKey)
      .set('idempotency-key', ['order-7', 'order-8'] as unknown as string) // superagent sends one line per element; its types name strings only
      .send(body(market.id));
    expect(twice.body).toEqual(error(4000, 'invalid request', 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once'));
    expect(await disputesOf(market.id)).toBe(0);
  });

  it('files one dispute for 50 concurrent requests with one key on two instances; each learns it, at once or on retry', async () => {
    const market = await fixtures.market(partner.source);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => file(i % 2 === 0 ? a : b, 'burst', body(market.id)).then((answer) => answer)));
    expect(await disputesOf(market.id)).toBe(1);
    const filed = answers.filter((answer) => answer.body.code === 0);
    const inProgress = answers.filter((answer) => answer.body.code === 4096);
    expect(filed.length + inProgress.length).toBe(50);
    expect(new Set(filed.map((answer) => answer.body.data.dispute_id)).size).toBe(1);
    expect(filed.filter((answer) => answer.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    for (const answer of inProgress) {
      expect(answer.body).toEqual(error(4096, 'request with this idempotency key in progress'));
      expect(answer.headers['retry-after']).toBe('1');
    }
    const retried = await file(b, 'burst', body(market.id));
    expect([retried.body.data.dispute_id, retried.headers['idempotent-replayed']]).toEqual([filed[0].body.data.dispute_id, 'true']);
  });
});
