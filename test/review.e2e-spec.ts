import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });
const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

describe('review back office (/admin)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_MASTER_KEY: MASTER });
  });

  afterAll(async () => {
    await t.close();
  });

  const as = (key: string | undefined) => ({
    get: (path: string) => {
      const call = t.http.get(path);
      return key ? call.set('authorization', `Bearer ${key}`) : call;
    },
    post: (path: string, body: object = {}) => {
      const call = t.http.post(path);
      return (key ? call.set('authorization', `Bearer ${key}`) : call).send(body);
    },
    delete: (path: string) => {
      const call = t.http.delete(path);
      return key ? call.set('authorization', `Bearer ${key}`) : call;
    },
  });
  const master = as(MASTER);

  async function createReviewer(role: 'admin' | 'reviewer', name = `${role}-${Math.random().toString(36).slice(2, 8)}`) {
    const response = await master.post('/admin/reviewers', { name, role });
    expect(response.body.code).toBe(0);
    return response.body.data as { id: number; name: string; role: string; api_key: string };
  }

  /** How many audit events record `action` on `target`. */
  async function auditedTimes(action: string, target: string): Promise<number> {
    const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM audit_events WHERE action = $1 AND target = $2', [action, target]);
    return n;
  }

  async function partnerWithResolvedMarket(source: string, slug = 'will-it-happen') {
    const partner = (await master.post('/admin/partners', { source, name: `${source} Ltd` })).body.data;
    const market = (await master.post('/admin/markets', { source, slug })).body.data;
    const resolved = await master.post(`/admin/markets/${market.id}/resolve`, {
      verdict: 'YES',
      confidence: 'VERY_HIGH',
      reasoning: 'Confirmed by two independent sources.',
      proofs: [{ chain: 'base', tx_hash: '0xabc' }],
      resolved_at: '2026-11-20T08:00:00Z',
    });
    expect(resolved.body.code).toBe(0);
    return { apiKey: partner.api_key as string, marketId: market.id as number, slug };
  }

  async function fileDispute(apiKey: string, marketId: number, selection = 'NO') {
    const response = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', apiKey).send({
      market_id: marketId,
      submitter_id: 'user-9',
      submitter_name: 'Lin',
      submitter_selection: selection,
      reason_text: 'Wrong outcome.',
      submitted_at: '2026-11-20T09:00:00Z',
    });
    expect(response.body.code).toBe(0);
    return response.body.data.dispute_id as number;
  }

  describe('authentication and roles', () => {
    it('4012 without, with a malformed, or with an unknown bearer credential', async () => {
      expect((await as(undefined).get('/admin/partners')).body).toEqual(error(4012, 'invalid admin credentials'));
      expect((await t.http.get('/admin/partners').set('authorization', MASTER)).body).toEqual(
        error(4012, 'invalid admin credentials'),
      );
      expect((await as('soa_unknown').get('/admin/disputes')).body).toEqual(error(4012, 'invalid admin credentials'));
    });

    it('keeps partner keys and admin keys apart', async () => {
      const partner = (await master.post('/admin/partners', { source: 'apart', name: 'Apart' })).body.data;
      expect((await as(partner.api_key).get('/admin/disputes')).body).toEqual(error(4012, 'invalid admin credentials'));
      const response = await t.http
        .post('/oracle/markets/dispute/submit')
        .set('x-api-key', MASTER)
        .send({ market_id: 1 });
      expect(response.body).toEqual(error(4011, 'invalid api key'));
    });

    it('4031 when a reviewer calls an admin-only route; reviewers may read and decide disputes', async () => {
      const reviewer = as((await createReviewer('reviewer')).api_key);
      for (const call of [
        reviewer.get('/admin/partners'),
        reviewer.get('/admin/reviewers'),
        reviewer.get('/admin/audit'),
        reviewer.post('/admin/partners', { source: 'nope', name: 'Nope' }),
        reviewer.post('/admin/markets', { source: 'nope', slug: 'x' }),
        reviewer.post('/admin/reviewers', { name: 'x', role: 'admin' }),
        reviewer.delete('/admin/reviewers/1'),
      ]) {
        expect((await call).body).toEqual(error(4031, 'forbidden'));
      }
      expect((await reviewer.get('/admin/disputes')).body.code).toBe(0);
    });

    it('tells a credential whose account it is (the master key is none): id, name and role', async () => {
      const reviewer = await createReviewer('reviewer', 'Wren');
      expect((await as(reviewer.api_key).get('/admin/me')).body).toEqual(ok({ id: reviewer.id, name: 'Wren', role: 'reviewer' }));
      expect((await master.get('/admin/me')).body).toEqual(ok({ id: null, name: 'master', role: 'admin' }));
      expect((await as(undefined).get('/admin/me')).body).toEqual(error(4012, 'invalid admin credentials'));
      expect((await master.get('/admin/me?x=1')).body).toEqual(error(4000, 'invalid request', 'x is not a known field'));
    });

    it('checks credentials before the body', async () => {
      const response = await t.http
        .post('/admin/partners')
        .set('content-type', 'application/json')
        .send('{oops');
      expect(response.body).toEqual(error(4012, 'invalid admin credentials'));
      const malformed = await t.http
        .post('/admin/partners')
        .set('authorization', `Bearer ${MASTER}`)
        .set('content-type', 'application/json')
        .send('{oops');
      expect(malformed.body).toEqual(error(4001, 'malformed JSON body'));
    });
  });

  describe('reviewers', () => {
    it('creates (key shown once), lists (never the key) and revokes a reviewer, effective at once', async () => {
      const created = await master.post('/admin/reviewers', { name: 'Rita', role: 'reviewer' });
      expect(created.body).toEqual(
        ok({ id: expect.any(Number), name: 'Rita', role: 'reviewer', api_key: expect.stringMatching(/^soa_/) }),
      );
      const { id, api_key: key } = created.body.data;
      // Its key is in this answer: no cache may keep it, nor any admin answer (a public one has no such rule).
      expect(created.headers['cache-control']).toBe('no-store');
      expect((await master.get('/admin/reviewers')).headers['cache-control']).toBe('no-store');
      expect((await t.http.get('/oracle/markets/public?slug=a&source=b')).headers['cache-control']).toBeUndefined();
      expect((await as(key).get('/admin/disputes')).body.code).toBe(0);

      const listed = await master.get('/admin/reviewers');
      expect(listed.body.data.reviewers).toContainEqual({ id, name: 'Rita', role: 'reviewer', created_at: ISO, revoked_at: null });
      expect(JSON.stringify(listed.body)).not.toContain(key);

      const revoked = await master.delete(`/admin/reviewers/${id}`);
      expect(revoked.body).toEqual(ok({ id, revoked_at: ISO }));
      expect((await as(key).get('/admin/disputes')).body).toEqual(error(4012, 'invalid admin credentials'));
      // Again: the same answer, and the trail holds the one revocation.
      expect((await master.delete(`/admin/reviewers/${id}`)).body).toEqual(revoked.body);
      expect(await auditedTimes('reviewer.revoked', `reviewer:${id}`)).toBe(1);
      // Unknown ids have their own code (4044 is for routes only).
      expect((await master.delete('/admin/reviewers/987654321')).body).toEqual(error(4043, 'reviewer not found'));
    });

    it("4093 for a name another account, revoked or not, or the master key has, in any letter case: a decision's decided_by names one", async () => {
      const taken = error(4093, 'already exists', 'a reviewer account or the master key has that name, or one that reads the same');
      const { id } = (await master.post('/admin/reviewers', { name: 'Noor', role: 'reviewer' })).body.data;
      expect((await master.post('/admin/reviewers', { name: ' Noor ', role: 'admin' })).body).toEqual(taken);
      await master.delete(`/admin/reviewers/${id}`);
      for (const name of ['Noor', 'noor', 'NOOR', 'master', ' Master ', 'MASTER']) {
        expect((await master.post('/admin/reviewers', { name, role: 'reviewer' })).body).toEqual(taken);
      }
      const [{ n }] = await t.dataSource.query("SELECT count(*)::int AS n FROM reviewers WHERE lower(name) IN ('noor', 'master')");
      expect(n).toBe(1);
    });

    it('4000 for a name with a character that does not show (zero-width, direction, control), which would pass for another', async () => {
      const invisible = error(4000, 'invalid request', 'name must not contain control, zero-width or direction characters');
      for (const name of ['ali\u200bce', 'x\u202eevil', 'tab\there', 'b\ufeffom', 'soft\u00adhyphen', 'iso\u2066late', 'fill\u3164er', 'heart\u2764\ufe0f']) {
        expect((await master.post('/admin/reviewers', { name, role: 'reviewer' })).body).toEqual(invisible);
      }
      expect((await master.post('/admin/reviewers', { name: 'Zoë Ångström 李', role: 'reviewer' })).body.code).toBe(0);
    });

    it('4031 when an admin account revokes itself: the last one would lock every admin out', async () => {
      const admin = await createReviewer('admin');
      const self = as(admin.api_key);
      expect((await self.delete(`/admin/reviewers/${admin.id}`)).body).toEqual(
        error(4031, 'forbidden', 'an account cannot revoke itself: another admin, or the master key, can'),
      );
      expect((await self.get('/admin/reviewers')).body.code).toBe(0);
      expect(await auditedTimes('reviewer.revoked', `reviewer:${admin.id}`)).toBe(0);
      const other = as((await createReviewer('admin')).api_key);
      expect((await other.delete(`/admin/reviewers/${admin.id}`)).body.code).toBe(0);
    });

    it('4000 for a bad reviewer body, naming every field', async () => {
      expect((await master.post('/admin/reviewers', { name: '', role: 'boss' })).body).toEqual(
        error(
          4000,
          'invalid request',
          'name must be a non-empty string of at most 200 characters; role must be one of: admin, reviewer',
        ),
      );
    });

    it('an admin reviewer can do admin work', async () => {
      const admin = as((await createReviewer('admin')).api_key);
      expect((await admin.post('/admin/partners', { source: 'by-admin', name: 'By Admin' })).body.code).toBe(0);
    });
  });

  describe('partners and keys', () => {
    it('creates a partner whose key works at once; lists partners with key prefixes only', async () => {
      const created = await master.post('/admin/partners', { source: ' initech ', name: 'Initech' });
      expect(created.body).toEqual(
        ok({ source: 'initech', name: 'Initech', key_id: expect.any(Number), api_key: expect.stringMatching(/^sok_/) }),
      );
      const { api_key: key, key_id: keyId } = created.body.data;
      const probe = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', key).send({});
      expect(probe.body.code).toBe(4000);

      const listed = await master.get('/admin/partners');
      const initech = listed.body.data.partners.find((p: { source: string }) => p.source === 'initech');
      expect(initech).toEqual({
        source: 'initech',
        name: 'Initech',
        created_at: ISO,
        keys: [{ key_id: keyId, prefix: key.slice(0, 12), created_at: ISO, revoked_at: null }],
      });
      expect(JSON.stringify(listed.body)).not.toContain(key);
    });

    it('4000 for a query parameter or a body member on routes that take none; no body, or {}, issues a key', async () => {
      const unknown = (field: string) => ({ code: 4000, msg: 'invalid request', detail: `${field} is not a known field` });
      for (const path of ['/admin/partners?x=1', '/admin/reviewers?x=1', '/admin/disputes/counts?x=1', '/admin/disputes/1?x=1']) {
        expect((await master.get(path)).body).toEqual(unknown('x'));
      }
      await master.post('/admin/partners', { source: 'umbrella', name: 'Umbrella' });
      expect((await master.post('/admin/partners/umbrella/keys', { label: 'ci' })).body).toEqual(unknown('label'));
      expect((await master.post('/admin/partners/umbrella/keys?label=ci')).body).toEqual(unknown('label'));
      expect((await master.post('/admin/partners/umbrella/keys', { '': 1 })).body).toEqual(unknown('""'));
      expect((await master.post('/admin/partners/umbrella/keys?=1')).body).toEqual(unknown('""'));
      expect((await master.post('/admin/partners/umbrella/keys', [])).body.code).toBe(4001);
      expect((await master.post('/admin/partners/umbrella/keys')).body.code).toBe(0);
      const bare = await t.http.post('/admin/partners/umbrella/keys').set('authorization', `Bearer ${MASTER}`);
      expect(bare.body.code).toBe(0);
    });

    it('4093 for a duplicate source, 4042 for keys of an unknown partner', async () => {
      await master.post('/admin/partners', { source: 'dup', name: 'Dup' });
      expect((await master.post('/admin/partners', { source: 'dup', name: 'Dup again' })).body).toEqual(
        error(4093, 'already exists', 'a partner has that source, or one that reads the same'),
      );
      expect((await master.post('/admin/partners/ghost/keys')).body).toEqual(error(4042, 'partner not found'));
      expect((await master.delete('/admin/partners/ghost/keys/1')).body).toEqual(error(4042, 'partner not found'));
    });

    it('issues a second key and revokes the first: the revoked key fails at once, the other works', async () => {
      const first = (await master.post('/admin/partners', { source: 'rotating', name: 'Rotating' })).body.data;
      const second = await master.post('/admin/partners/rotating/keys');
      expect(second.body).toEqual(ok({ key_id: expect.any(Number), api_key: expect.stringMatching(/^sok_/) }));

      const revoked = await master.delete(`/admin/partners/rotating/keys/${first.key_id}`);
      expect(revoked.body).toEqual(ok({ key_id: first.key_id, revoked_at: ISO }));
      expect((await master.delete(`/admin/partners/rotating/keys/${first.key_id}`)).body).toEqual(revoked.body);
      expect(await auditedTimes('key.revoked', 'partner:rotating')).toBe(1);
      const withRevoked = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', first.api_key).send({});
      expect(withRevoked.body).toEqual(error(4011, 'invalid api key'));
      const withSecond = await t.http
        .post('/oracle/markets/dispute/submit')
        .set('x-api-key', second.body.data.api_key)
        .send({});
      expect(withSecond.body.code).toBe(4000);
    });

    it("cannot revoke another partner's key", async () => {
      const other = (await master.post('/admin/partners', { source: 'other-co', name: 'Other' })).body.data;
      await master.post('/admin/partners', { source: 'mine-co', name: 'Mine' });
      const response = await master.delete(`/admin/partners/mine-co/keys/${other.key_id}`);
      expect(response.body).toEqual(error(4045, 'api key not found'));
    });
  });

  describe('markets', () => {
    it('creates a monitoring market and resolves it; the public record shows it at once', async () => {
      await master.post('/admin/partners', { source: 'mkt', name: 'Mkt' });
      const created = await master.post('/admin/markets', { source: 'mkt', slug: ' /elections/2026/ ' });
      expect(created.body).toEqual(
        ok({
          id: expect.any(Number),
          source: 'mkt',
          slug: 'elections/2026',
          status: 'monitoring',
          verdict: null,
          resolved_at: null,
          confidence: null,
          reasoning: null,
          proofs: [],
          disputes: null,
        }),
      );
      const id = created.body.data.id;
      const resolved = await master.post(`/admin/markets/${id}/resolve`, {
        verdict: 'YES',
        confidence: 'MEDIUM',
        reasoning: 'Official results published.',
        proofs: [
          { chain: 'bsc', tx_hash: '0x01' },
          { chain: 'base', tx_hash: '0x02' },
        ],
        resolved_at: '2026-11-20T10:00:00+01:00',
      });
      const item = {
        id,
        source: 'mkt',
        slug: 'elections/2026',
        status: 'resolved',
        verdict: 'YES',
        resolved_at: '2026-11-20T09:00:00.000Z',
        confidence: 'MEDIUM',
        reasoning: 'Official results published.',
        proofs: [
          { chain: 'bsc', tx_hash: '0x01' },
          { chain: 'base', tx_hash: '0x02' },
        ],
        disputes: null,
      };
      expect(resolved.body).toEqual(ok(item));
      const published = await t.http.get('/oracle/markets/public').query({ slug: 'elections/2026', source: 'mkt' });
      expect(published.body).toEqual(ok({ markets: [item] }));
    });

    it('4042 for an unknown source, 4093 for a duplicate (source, slug)', async () => {
      expect((await master.post('/admin/markets', { source: 'nobody', slug: 'x' })).body).toEqual(
        error(4042, 'partner not found'),
      );
      await master.post('/admin/partners', { source: 'twice', name: 'Twice' });
      expect((await master.post('/admin/markets', { source: 'twice', slug: 'same' })).body.code).toBe(0);
      expect((await master.post('/admin/markets', { source: 'twice', slug: '/same/' })).body).toEqual(
        error(4093, 'already exists', 'the source has a market with that slug, or one that reads the same'),
      );
    });

    it('stores a slug whose slashes and spaces interleave at its ends in the form it echoes, and finds it by that form', async () => {
      await master.post('/admin/partners', { source: 'ends', name: 'Ends' });
      const created = (await master.post('/admin/markets', { source: 'ends', slug: 'a/ /' })).body;
      expect(created).toMatchObject({ code: 0, data: { slug: 'a' } });
      const published = await t.http.get('/oracle/markets/public').query({ slug: created.data.slug, source: 'ends' });
      expect(published.body.data.markets.map((market: { id: number }) => market.id)).toEqual([created.data.id]);
      expect((await master.post('/admin/markets', { source: 'ends', slug: ' /a/ ' })).body).toEqual(
        error(4093, 'already exists', 'the source has a market with that slug, or one that reads the same'),
      );
    });

    it('refuses a slug with a character that does not show (a partner could never type it), once its ends are trimmed', async () => {
      await master.post('/admin/partners', { source: 'unseen', name: 'Unseen' });
      const invisible = error(4000, 'invalid request', 'slug must not contain control, zero-width or direction characters');
      for (const slug of ['\u200bzw', 'a\u0007b', 'a\tb', 'line\nbreak', 'abc\u202Eevil', 'soft\u00ADhyphen', 'a\uFEFFb', 'line\u2028separator']) {
        expect({ slug, body: (await master.post('/admin/markets', { source: 'unseen', slug })).body }).toEqual({ slug, body: invisible });
      }
      expect((await master.post('/admin/markets', { source: 'unseen', slug: '\tvisible/\n' })).body).toMatchObject({ code: 0, data: { slug: 'visible' } });
      expect((await master.post('/admin/markets', { source: 'unseen', slug: 'caf\u00e9 2026' })).body).toMatchObject({ code: 0, data: { slug: 'caf\u00e9 2026' } });
    });

    it('4094 when resolving a market that is not monitoring; 4040 for an unknown one', async () => {
      const { marketId } = await partnerWithResolvedMarket('resolver');
      const body = { verdict: 'NO', confidence: 'LOW', reasoning: 'again', proofs: [{ chain: 'base', tx_hash: '0x1' }] };
      expect((await master.post(`/admin/markets/${marketId}/resolve`, body)).body).toEqual(
        error(4094, 'market is not monitoring'),
      );
      expect((await master.post('/admin/markets/99999999/resolve', body)).body).toEqual(error(4040, 'market not found'));
    });

    it('4000 for invalid confidence, chain, proofs and resolved_at, naming each', async () => {
      await master.post('/admin/partners', { source: 'strict', name: 'Strict' });
      const { id } = (await master.post('/admin/markets', { source: 'strict', slug: 'm' })).body.data;
      const response = await master.post(`/admin/markets/${id}/resolve`, {
        verdict: 'YES',
        confidence: 'SURE',
        reasoning: 'r',
        proofs: [{ chain: 'eth', tx_hash: '0x1' }],
        resolved_at: 'soon',
      });
      expect(response.body).toEqual(
        error(
          4000,
          'invalid request',
          'confidence must be one of: VERY_HIGH, HIGH, MEDIUM, LOW, VERY_LOW; ' +
            'proofs.0.chain must be one of: base, bsc; resolved_at must be an RFC 3339 timestamp',
        ),
      );
      const noProofs = await master.post(`/admin/markets/${id}/resolve`, {
        verdict: 'YES',
        confidence: 'HIGH',
        reasoning: 'r',
        proofs: [],
      });
      expect(noProofs.body).toEqual(error(4000, 'invalid request', 'proofs must be an array of 1 to 20 proofs'));
      // Arrays, strings or null in the array: 4000 (an array of arrays reached the insert: 5000).
      for (const proofs of [[[]], [[{ chain: 'base', tx_hash: '0x1' }]], [{ chain: 'base', tx_hash: '0x1' }, []], ['0x1'], [null]]) {
        const nested = await master.post(`/admin/markets/${id}/resolve`, { verdict: 'YES', confidence: 'HIGH', reasoning: 'r', proofs });
        expect(nested.body).toEqual(error(4000, 'invalid request', 'proofs must be an array of 1 to 20 proofs, each an object'));
      }
      expect((await master.post('/admin/markets/abc/resolve', {})).body).toEqual(
        error(4000, 'invalid request', 'id must be a positive integer'),
      );
    });
  });

  describe('the dispute queue and decisions', () => {
    it('runs the whole lifecycle: partner disputes, reviewer keeps or overrides, partner reads the decision', async () => {
      const reviewer = await createReviewer('reviewer', 'Quinn');
      const { apiKey, marketId, slug } = await partnerWithResolvedMarket('lifecycle');
      const disputeId = await fileDispute(apiKey, marketId, 'NO');

      const detail = await as(reviewer.api_key).get(`/admin/disputes/${disputeId}`);
      expect(detail.body).toEqual(
        ok({
          id: disputeId,
          status: 'open',
          submitter_selection: 'NO',
          reason_text: 'Wrong outcome.',
          submitted_at: '2026-11-20T09:00:00.000Z',
          decision: null,
          market_id: marketId,
          source: 'lifecycle',
          slug,
          verdict: 'YES',
          market_status: 'disputed',
          submitter_id: 'user-9',
          submitter_name: 'Lin',
        }),
      );
      // One rule for ids, in paths as in bodies: decimal digits, leading zeros allowed.
      expect((await as(reviewer.api_key).get(`/admin/disputes/000${disputeId}`)).body).toEqual(detail.body);

      const decided = await as(reviewer.api_key).post(`/admin/disputes/${disputeId}/decision`, {
        type: 'override',
        reason_text: 'The source was corrected.',
      });
      expect(decided.body).toEqual(
        ok({
          ...detail.body.data,
          status: 'closed',
          market_status: 'closed',
          decision: {
            type: 'override',
            partner_final_verdict: 'NO',
            reason_text: 'The source was corrected.',
            decided_at: ISO,
            decided_by: 'Quinn',
          },
        }),
      );

      const polled = await t.http.get('/oracle/markets/public').query({ slug, source: 'lifecycle' });
      const market = polled.body.data.markets[0];
      expect(market.status).toBe('closed');
      expect(market.verdict).toBe('YES');
      expect(market.disputes[0].decision).toEqual({
        type: 'override',
        partner_final_verdict: 'NO',
        reason_text: 'The source was corrected.',
        decided_at: decided.body.data.decision.decided_at,
      });

      expect((await master.post(`/admin/disputes/${disputeId}/decision`, { type: 'keep', reason_text: 'x' })).body).toEqual(
        error(4092, 'dispute already decided'),
      );
    });

    it("keep: the final verdict is the market's own", async () => {
      const { apiKey, marketId } = await partnerWithResolvedMarket('keeper');
      const disputeId = await fileDispute(apiKey, marketId, 'NO');
      const decided = await master.post(`/admin/disputes/${disputeId}/decision`, { type: 'keep', reason_text: 'Correct.' });
      expect(decided.body.data.decision).toMatchObject({ type: 'keep', partner_final_verdict: 'YES', decided_by: 'master' });
    });

    it('4041 for an unknown dispute; 4000 for a bad decision body', async () => {
      expect((await master.get('/admin/disputes/987654')).body).toEqual(error(4041, 'dispute not found'));
      expect((await master.post('/admin/disputes/987654/decision', { type: 'keep', reason_text: 'x' })).body).toEqual(
        error(4041, 'dispute not found'),
      );
      expect((await master.post('/admin/disputes/1/decision', { type: 'maybe' })).body).toEqual(
        error(4000, 'invalid request', 'type must be one of: keep, override; reason_text is required'),
      );
    });

    it('exactly one of 50 concurrent decisions on one dispute wins', async () => {
      const { apiKey, marketId } = await partnerWithResolvedMarket('racing-decisions');
      const disputeId = await fileDispute(apiKey, marketId);
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          master.post(`/admin/disputes/${disputeId}/decision`, {
            type: i % 2 ? 'keep' : 'override',
            reason_text: `decision ${i}`,
          }),
        ),
      );
      const codes = responses.map((response) => response.body.code);
      expect(codes.filter((code) => code === 0)).toHaveLength(1);
      expect(codes.filter((code) => code === 4092)).toHaveLength(49);
      const events = await t.dataSource.query(
        `SELECT count(*)::int AS count FROM audit_events WHERE action = 'dispute.decided' AND target = $1`,
        [`dispute:${disputeId}`],
      );
      expect(events[0].count).toBe(1);
    });

    /** Closes every open dispute, then files `count` new ones for a new partner: their ids. */
    async function freshQueue(source: string, count: number) {
      await t.dataSource.query(
        `UPDATE disputes SET status = 'closed', decision_type = 'keep', partner_final_verdict = 'YES',
           decision_reason = 'cleanup', decided_at = now(), decided_by = 'test' WHERE status = 'open'`,
      );
      const partner = (await master.post('/admin/partners', { source, name: `Queue ${source}` })).body.data;
      const filed: number[] = [];
      for (let i = 0; i < count; i++) {
        const market = (await master.post('/admin/markets', { source, slug: `q-${i}` })).body.data;
        await master.post(`/admin/markets/${market.id}/resolve`, {
          verdict: 'YES',
          confidence: 'HIGH',
          reasoning: 'r',
          proofs: [{ chain: 'base', tx_hash: '0x1' }],
        });
        filed.push(await fileDispute(partner.api_key, market.id));
      }
      return { partner, filed };
    }

    it('lists the queue oldest first with cursors that stay correct while disputes arrive', async () => {
      const { partner, filed } = await freshQueue('queue', 4);
      const page1 = await master.get('/admin/disputes?status=open&limit=2');
      expect(page1.body.data.disputes.map((d: { id: number }) => d.id)).toEqual(filed.slice(0, 2));
      expect(page1.body.data.next_cursor).toEqual(expect.any(String));

      // A new dispute arrives between pages: it shows up at the end, nothing is skipped or repeated.
      const late = (await master.post('/admin/markets', { source: 'queue', slug: 'late' })).body.data;
      await master.post(`/admin/markets/${late.id}/resolve`, {
        verdict: 'YES',
        confidence: 'HIGH',
        reasoning: 'r',
        proofs: [{ chain: 'base', tx_hash: '0x1' }],
      });
      const lateId = await fileDispute(partner.api_key, late.id);

      const page2 = await master.get(`/admin/disputes?status=open&limit=2&cursor=${page1.body.data.next_cursor}`);
      expect(page2.body.data.disputes.map((d: { id: number }) => d.id)).toEqual(filed.slice(2, 4));
      const page3 = await master.get(`/admin/disputes?status=open&limit=2&cursor=${page2.body.data.next_cursor}`);
      expect(page3.body.data).toEqual({ disputes: [expect.objectContaining({ id: lateId })], next_cursor: null });

      const closed = await master.get('/admin/disputes?status=closed&limit=100');
      expect(closed.body.data.disputes.every((d: { status: string }) => d.status === 'closed')).toBe(true);
    });

    it('lists open disputes before closed ones when no status is given, each oldest first', async () => {
      const { filed } = await freshQueue('queue-all', 4);
      const [decidedFirst, open1, open2, decidedBetweenPages] = filed;
      await master.post(`/admin/disputes/${decidedFirst}/decision`, { type: 'keep', reason_text: 'Correct.' });
      const closedIds = async () =>
        (await t.dataSource.query(`SELECT id FROM disputes WHERE status = 'closed' ORDER BY id`)).map((row: { id: string }) => Number(row.id));

      const page1 = await master.get('/admin/disputes?limit=2');
      expect(page1.body.data.disputes.map((d: { id: number }) => d.id)).toEqual([open1, open2]);

      // Decided after the first page: not skipped, it shows again among the closed ones.
      await master.post(`/admin/disputes/${open2}/decision`, { type: 'keep', reason_text: 'Correct.' });
      const page2 = await master.get(`/admin/disputes?limit=1&cursor=${page1.body.data.next_cursor}`);
      expect(page2.body.data.disputes.map((d: { id: number }) => d.id)).toEqual([decidedBetweenPages]);
      const rest = await master.get(`/admin/disputes?limit=100&cursor=${page2.body.data.next_cursor}`);
      expect(rest.body.data.next_cursor).toBeNull();
      expect(rest.body.data.disputes.map((d: { id: number }) => d.id)).toEqual(await closedIds());
      expect(rest.body.data.disputes.map((d: { id: number }) => d.id)).toEqual(expect.arrayContaining([decidedFirst, open2]));

      // A whole list in small pages: every dispute once, open ones first.
      const seen: { id: number; status: string }[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: { data: { disputes: { id: number; status: string }[]; next_cursor: string | null } } } =
          await master.get(`/admin/disputes?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        seen.push(...page.body.data.disputes);
        cursor = page.body.data.next_cursor;
      } while (cursor);
      expect(seen.map((d) => d.id)).toEqual([open1, decidedBetweenPages, ...(await closedIds())]);
      expect(seen.map((d) => d.status).slice(0, 2)).toEqual(['open', 'open']);
    });

    it('4000 for a bad status, limit, cursor or unknown query parameter', async () => {
      expect((await master.get('/admin/disputes?status=pending')).body).toEqual(
        error(4000, 'invalid request', 'status must be one of: open, closed'),
      );
      expect((await master.get('/admin/disputes?limit=0')).body).toEqual(
        error(4000, 'invalid request', 'limit must be an integer from 1 to 100'),
      );
      expect((await master.get('/admin/disputes?cursor=ZZZ')).body).toEqual(
        error(4000, 'invalid request', 'cursor is not a cursor this service issued'),
      );
      expect((await master.get('/admin/disputes?sort=desc')).body).toEqual(
        error(4000, 'invalid request', 'sort is not a known field'),
      );
    });
  });

  describe('audit trail', () => {
    it('records every admin write with actor, action and target, never a key, newest first with cursors', async () => {
      const admin = await createReviewer('admin', 'Ada');
      const created = (await as(admin.api_key).post('/admin/partners', { source: 'audited', name: 'Audited' })).body.data;
      await as(admin.api_key).post('/admin/partners/audited/keys');

      const page = await master.get('/admin/audit?limit=2');
      expect(page.body.data.events).toEqual([
        {
          id: expect.any(Number),
          at: ISO,
          actor: 'Ada',
          action: 'key.issued',
          target: 'partner:audited',
          details: { actor_id: admin.id, key_id: expect.any(Number) },
        },
        {
          id: expect.any(Number),
          at: ISO,
          actor: 'Ada',
          action: 'partner.created',
          target: 'partner:audited',
          details: { actor_id: admin.id, name: 'Audited', key_id: created.key_id },
        },
      ]);
      const next = await master.get(`/admin/audit?limit=1&cursor=${page.body.data.next_cursor}`);
      expect(next.body.data.events[0]).toMatchObject({ action: 'reviewer.created', actor: 'master', target: `reviewer:${admin.id}` });

      const all = await t.dataSource.query('SELECT actor, action, target, details::text AS details FROM audit_events');
      const actions = new Set(all.map((event: { action: string }) => event.action));
      for (const action of [
        'reviewer.created',
        'reviewer.revoked',
        'partner.created',
        'key.issued',
        'key.revoked',
        'market.created',
        'market.resolved',
        'dispute.decided',
      ]) {
        expect(actions).toContain(action);
      }
      expect(JSON.stringify(all)).not.toMatch(/so[ak]_[A-Za-z0-9_-]{20,}/);
    });

    it('is append-only in the database: no UPDATE, DELETE or TRUNCATE, even by the role that owns it', async () => {
      await expect(t.dataSource.query('DELETE FROM audit_events')).rejects.toThrow(/append-only/);
      await expect(t.dataSource.query("UPDATE audit_events SET actor = 'someone else'")).rejects.toThrow(/append-only/);
      await expect(t.dataSource.query('TRUNCATE audit_events')).rejects.toThrow(/append-only/);
      await expect(t.dataSource.query('TRUNCATE audit_events, markets CASCADE')).rejects.toThrow(/append-only/);
    });

    it('writes no audit event when the write fails', async () => {
      const [{ count: before }] = await t.dataSource.query('SELECT count(*)::int AS count FROM audit_events');
      await master.post('/admin/partners', { source: 'audited', name: 'Again' });
      const [{ count: after }] = await t.dataSource.query('SELECT count(*)::int AS count FROM audit_events');
      expect(after).toBe(before);
    });
  });
});
