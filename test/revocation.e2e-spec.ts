import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { QueryRunner } from './support/app-database';
import { startTestApp, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
const error = (code: number, msg: string) => ({ code, msg, detail: msg });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A revocation and the requests in progress with the credential it revokes: once it has
 * answered, nothing done with that credential commits after it. A request that the guard let in
 * before the revocation either commits first (the revocation waits for it) or is refused.
 */
describe('revoking a key or an account while it is in use', () => {
  let t: TestApp;
  let holder: QueryRunner;
  let sequence = 0;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_MASTER_KEY: MASTER });
  });

  afterAll(async () => {
    await t.close();
  });

  const as = (key: string) => ({
    post: (path: string, body: object = {}) => t.http.post(path).set('authorization', `Bearer ${key}`).send(body),
    delete: (path: string) => t.http.delete(path).set('authorization', `Bearer ${key}`),
  });
  const master = as(MASTER);

  /** Runs `work` in a transaction of its own, which holds what `locks` lock until `work` returns. */
  async function holding<T>(locks: string[], values: unknown[], work: () => Promise<T>): Promise<T> {
    holder = t.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    try {
      for (const lock of locks) await holder.query(lock, values);
      return await work();
    } finally {
      await holder.commitTransaction();
      await holder.release();
    }
  }

  /**
   * Waits until `count` of the service's statements (those whose text holds `fragment`) wait for
   * a lock; the test fails if they never do.
   */
  /** The filing's statement that locks its market (its key is held before). */
  const MARKET_LOCK = 'FROM markets WHERE id';

  async function waitingForLocks(count: number, fragment = ''): Promise<void> {
    for (let attempt = 0; attempt < 200; attempt++) {
      const [{ waiting }] = await t.dataSource.query(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND strpos(query, $1) > 0`,
        [fragment],
      );
      if (waiting >= count) return;
      await sleep(25);
    }
    throw new Error(`fewer than ${count} statements waited for a lock`);
  }

  async function resolvedMarket() {
    const source = `revoked-${++sequence}`;
    const partner = (await master.post('/admin/partners', { source, name: source })).body.data;
    const market = (await master.post('/admin/markets', { source, slug: 'in-use' })).body.data;
    const resolve = { verdict: 'YES', confidence: 'HIGH', reasoning: 'Confirmed.', proofs: [{ chain: 'base', tx_hash: '0xabc' }] };
    expect((await master.post(`/admin/markets/${market.id}/resolve`, resolve)).body.code).toBe(0);
    return { source, apiKey: partner.api_key as string, keyId: partner.key_id as number, marketId: market.id as number };
  }

  const fileDispute = (apiKey: string, marketId: number) =>
    t.http.post('/oracle/markets/dispute/submit').set('x-api-key', apiKey).send({
      market_id: marketId,
      submitter_id: 'user-1',
      submitter_name: 'Ann',
      submitter_selection: 'NO',
      reason_text: 'Wrong outcome.',
    });

  async function openDispute() {
    const market = await resolvedMarket();
    const filed = await fileDispute(market.apiKey, market.marketId);
    expect(filed.body.code).toBe(0);
    return { ...market, disputeId: filed.body.data.dispute_id as number };
  }

  const marketStatus = async (id: number) => (await t.dataSource.query('SELECT status FROM markets WHERE id = $1', [id]))[0].status;

  it('a long poll of the changes feed held when its key is revoked is refused 4011 when an event wakes it, not given the event', async () => {
    const { source, apiKey, keyId } = await resolvedMarket();
    const [{ head }] = await t.dataSource.query('SELECT last_sequence::int AS head FROM change_log_head');
    // then(): supertest sends a request once it is awaited.
    const held = t.http.get('/oracle/markets/changes').query({ after: head, wait_ms: 10_000 }).set('x-api-key', apiKey).then((response) => response);
    await sleep(300);
    expect((await master.delete(`/admin/partners/${source}/keys/${keyId}`)).body.code).toBe(0);
    expect((await master.post('/admin/markets', { source, slug: 'after-the-revocation' })).body.code).toBe(0);
    expect((await held).body).toEqual({ code: 4011, msg: 'invalid api key', detail: 'invalid api key' });
  });

  it('a filing let in before its key was revoked, and still running, is refused 4011 once the revocation commits; nothing is filed', async () => {
    const { apiKey, keyId, marketId } = await resolvedMarket();
    // A revocation in progress: the key held as revokeKey holds it, its row updated, not committed.
    const revoking = ['SELECT revoking_partner_key($1)', 'UPDATE api_keys SET revoked_at = now() WHERE id = $1'];
    const { filing } = await holding(revoking, [keyId], async () => {
      const answer = fileDispute(apiKey, marketId).then((response) => response);
      await waitingForLocks(1, 'hold_partner_key');
      return { filing: answer };
    });
    expect((await filing).body).toEqual(error(4011, 'invalid api key'));
    expect(await marketStatus(marketId)).toBe('resolved');
    expect((await fileDispute(apiKey, marketId)).body).toEqual(error(4011, 'invalid api key'));
  });

  it('a revocation waits for the filings in progress with the key: it answers once they have committed', async () => {
    const { source, apiKey, keyId, marketId } = await resolvedMarket();
    const { filing, revocation } = await holding(['SELECT 1 FROM markets WHERE id = $1 FOR UPDATE'], [marketId], async () => {
      const filed = fileDispute(apiKey, marketId).then((response) => response);
      await waitingForLocks(1, MARKET_LOCK);
      const revoked = master.delete(`/admin/partners/${source}/keys/${keyId}`).then((response) => response);
      // The revocation waits for the filing's hold on the key, which waits for the market.
      await waitingForLocks(1, 'revoking_partner_key');
      return { filing: filed, revocation: revoked };
    });
    expect((await filing).body.code).toBe(0);
    expect((await revocation).body.code).toBe(0);
    expect(await marketStatus(marketId)).toBe('disputed');
  });

  it('filings that arrive while a revocation waits queue behind it: the key in use cannot keep its revocation waiting', async () => {
    const first = await resolvedMarket();
    // A second market of the same partner, filed with the same key.
    const second = (await master.post('/admin/markets', { source: first.source, slug: 'in-use-too' })).body.data;
    const resolve = { verdict: 'NO', confidence: 'HIGH', reasoning: 'Confirmed.', proofs: [{ chain: 'base', tx_hash: '0xdef' }] };
    expect((await master.post(`/admin/markets/${second.id}/resolve`, resolve)).body.code).toBe(0);
    const { earlier, revocation, later } = await holding(['SELECT 1 FROM markets WHERE id = $1 FOR UPDATE'], [first.marketId], async () => {
      const earlier = fileDispute(first.apiKey, first.marketId).then((response) => response);
      await waitingForLocks(1, MARKET_LOCK);
      const revocation = master.delete(`/admin/partners/${first.source}/keys/${first.keyId}`).then((response) => response);
      await waitingForLocks(1, 'revoking_partner_key');
      // Its key is held by the earlier filing only: with row locks FOR SHARE, this one was let
      // in beside it at once and filed, ahead of the revocation.
      const later = fileDispute(first.apiKey, second.id).then((response) => response);
      await waitingForLocks(1, 'hold_partner_key');
      return { earlier, revocation, later };
    });
    expect((await earlier).body.code).toBe(0);
    expect((await revocation).body.code).toBe(0);
    expect((await later).body).toEqual(error(4011, 'invalid api key'));
    expect(await marketStatus(second.id)).toBe('resolved');
  });

  it("a decision let in before its reviewer's account was revoked, and still running, is refused 4012 once the revocation commits", async () => {
    const { disputeId, marketId } = await openDispute();
    const reviewer = (await master.post('/admin/reviewers', { name: `reviewer-${++sequence}`, role: 'reviewer' })).body.data;
    const revoking = ['SELECT revoking_reviewer($1)', 'UPDATE reviewers SET revoked_at = now() WHERE id = $1'];
    const { decision } = await holding(revoking, [reviewer.id], async () => {
      const answer = as(reviewer.api_key).post(`/admin/disputes/${disputeId}/decision`, { type: 'keep', reason_text: 'Stands.' }).then((response) => response);
      await waitingForLocks(1, 'hold_reviewer');
      return { decision: answer };
    });
    expect((await decision).body).toEqual(error(4012, 'invalid admin credentials'));
    expect(await marketStatus(marketId)).toBe('disputed');
    const [{ n }] = await t.dataSource.query("SELECT count(*)::int AS n FROM audit_events WHERE action = 'dispute.decided' AND target = $1", [`dispute:${disputeId}`]);
    expect(n).toBe(0);
  });

  it("a reviewer's revocation waits for the account's decision in progress, and the account's writes that arrive meanwhile queue behind it", async () => {
    const [first, second] = [await openDispute(), await openDispute()];
    const reviewer = (await master.post('/admin/reviewers', { name: `reviewer-${++sequence}`, role: 'reviewer' })).body.data;
    const decide = (disputeId: number) =>
      as(reviewer.api_key).post(`/admin/disputes/${disputeId}/decision`, { type: 'keep', reason_text: 'Stands.' }).then((response) => response);
    const { earlier, revocation, later } = await holding(['SELECT 1 FROM disputes WHERE id = $1 FOR UPDATE'], [first.disputeId], async () => {
      // Its account held, the decision waits for the dispute's row.
      const earlier = decide(first.disputeId);
      await waitingForLocks(1, 'FOR UPDATE OF d');
      const revocation = master.delete(`/admin/reviewers/${reviewer.id}`).then((response) => response);
      await waitingForLocks(1, 'revoking_reviewer');
      const later = decide(second.disputeId);
      await waitingForLocks(1, 'hold_reviewer');
      return { earlier, revocation, later };
    });
    expect((await earlier).body.code).toBe(0);
    expect((await revocation).body.code).toBe(0);
    expect((await later).body).toEqual(error(4012, 'invalid admin credentials'));
    expect(await marketStatus(first.marketId)).toBe('closed');
    expect(await marketStatus(second.marketId)).toBe('disputed');
  });

  it('two admins revoking each other at once: exactly one revocation is made, the other admin gets 4012, never 5000', async () => {
    for (let round = 0; round < 4; round++) {
      const [a, b] = await Promise.all(
        ['a', 'b'].map(async (name) => (await master.post('/admin/reviewers', { name: `admin-${name}-${++sequence}`, role: 'admin' })).body.data),
      );
      const answers = await Promise.all([as(a.api_key).delete(`/admin/reviewers/${b.id}`), as(b.api_key).delete(`/admin/reviewers/${a.id}`)]);
      expect(answers.map((answer) => answer.body.code).sort()).toEqual([0, 4012]);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM reviewers WHERE id IN ($1, $2) AND revoked_at IS NOT NULL', [a.id, b.id]);
      expect(n).toBe(1);
    }
  });
});
