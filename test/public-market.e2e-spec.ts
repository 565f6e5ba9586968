import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Sql } from '../src/database/sql';
import { MarketsService } from '../src/markets/markets.service';
import { NO_PUBLIC_RECORD } from '../src/markets/public-records/public-record-cache';
import type { Fixtures } from './support/fixtures';
import { fixturesOf, startTestApp, type TestApp } from './support/test-app';

const MARKET_ITEM_KEYS = [
  'confidence', 'disputes', 'id', 'proofs', 'reasoning', 'resolved_at', 'slug', 'source', 'status', 'verdict',
];

describe('GET /oracle/markets/public', () => {
  let t: TestApp;
  let fixtures: Fixtures;
  let acme: { source: string; apiKey: string };

  beforeAll(async () => {
    t = await startTestApp();
    fixtures = fixturesOf(t);
    acme = await fixtures.partner('acme');
  });

  afterAll(async () => {
    await t.close();
  });

  it('returns a resolved market with verdict, confidence, proofs and null disputes', async () => {
    const market = await fixtures.market('acme', { slug: 'btc-100k', status: 'resolved' });
    const response = await t.http.get('/oracle/markets/public').query({ slug: 'btc-100k', source: 'acme' });

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.body).toEqual({
      code: 0,
      msg: 'success',
      data: {
        markets: [
          {
            id: market.id,
            source: 'acme',
            slug: 'btc-100k',
            status: 'resolved',
            verdict: 'YES',
            resolved_at: '2026-11-01T12:00:00.000Z',
            confidence: 'HIGH',
            reasoning: 'The outcome was confirmed by the official source.',
            proofs: [
              { chain: 'base', tx_hash: `0x${'0'.repeat(64)}` },
              { chain: 'bsc', tx_hash: `0x${'1'.repeat(64)}` },
            ],
            disputes: null,
          },
        ],
      },
    });
    expect(Object.keys(response.body.data.markets[0]).sort()).toEqual(MARKET_ITEM_KEYS);
  });

  it('shows nulls and no proofs before resolution', async () => {
    const market = await fixtures.market('acme', { slug: 'rain-tomorrow', status: 'monitoring' });
    const response = await t.http.get('/oracle/markets/public?slug=rain-tomorrow&source=acme');
    expect(response.body).toEqual({
      code: 0,
      msg: 'success',
      data: {
        markets: [
          {
            id: market.id,
            source: 'acme',
            slug: 'rain-tomorrow',
            status: 'monitoring',
            verdict: null,
            resolved_at: null,
            confidence: null,
            reasoning: null,
            proofs: [],
            disputes: null,
          },
        ],
      },
    });
  });

  it('trims slug and source, and strips leading and trailing slashes from the slug', async () => {
    await fixtures.market('acme', { slug: 'sports/nba-finals' });
    const response = await t.http.get('/oracle/markets/public').query({ slug: ' //sports/nba-finals/ ', source: '  acme ' });
    expect(response.body.code).toBe(0);
    expect(response.body.data.markets).toHaveLength(1);
    expect(response.body.data.markets[0]).toMatchObject({ slug: 'sports/nba-finals', source: 'acme' });
  });

  it('returns an empty list when nothing matches', async () => {
    await fixtures.market('acme', { slug: 'only-acme' });
    for (const query of [{ slug: 'no-such-market', source: 'acme' }, { slug: 'only-acme', source: 'someone-else' }]) {
      const response = await t.http.get('/oracle/markets/public').query(query);
      expect(response.body).toEqual({ code: 0, msg: 'success', data: { markets: [] } });
    }
  });

  it('shows a dispute inline, without the submitter identity, and its decision once closed', async () => {
    const market = await fixtures.market('acme', { slug: 'eth-etf' });
    const submitted = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', acme.apiKey).send({
      market_id: market.id,
      submitter_id: 'user-7',
      submitter_name: 'Ada',
      submitter_selection: 'NO',
      reason_text: 'The source was corrected.',
      submitted_at: '2026-11-02T10:00:00+02:00',
    });
    const disputeId = submitted.body.data.dispute_id;

    const open = await t.http.get('/oracle/markets/public').query({ slug: 'eth-etf', source: 'acme' });
    expect(open.body.data.markets[0].status).toBe('disputed');
    expect(open.body.data.markets[0].disputes).toEqual([
      {
        id: disputeId,
        status: 'open',
        submitter_selection: 'NO',
        reason_text: 'The source was corrected.',
        submitted_at: '2026-11-02T08:00:00.000Z',
        decision: null,
      },
    ]);
    expect(JSON.stringify(open.body)).not.toMatch(/user-7|Ada|submitter_id|submitter_name/);

    await fixtures.change('acme', 'eth-etf', 'dispute.decided', async (manager) => {
      await manager.query(
        `UPDATE disputes SET status = 'closed', decision_type = 'override', partner_final_verdict = 'NO',
           decision_reason = 'Corrected source.', decided_at = '2026-11-03T00:00:00Z', decided_by = 'reviewer-1'
         WHERE id = $1`,
        [disputeId],
      );
      await manager.query(`UPDATE markets SET status = 'closed' WHERE id = $1`, [market.id]);
    });
    const closed = await t.http.get('/oracle/markets/public').query({ slug: 'eth-etf', source: 'acme' });
    expect(closed.body.data.markets[0]).toMatchObject({ status: 'closed', verdict: 'YES' });
    expect(closed.body.data.markets[0].disputes[0].decision).toEqual({
      type: 'override',
      partner_final_verdict: 'NO',
      reason_text: 'Corrected source.',
      decided_at: '2026-11-03T00:00:00.000Z',
    });
    expect(JSON.stringify(closed.body)).not.toMatch(/reviewer-1|decided_by/);
  });

  it.each([
    ['without slug', '?source=acme', { code: 4100, msg: 'slug is required', detail: 'slug is required' }],
    ['with an empty slug', '?slug=%20/%20&source=acme', { code: 4100, msg: 'slug is required', detail: 'slug is required' }],
    ['without anything', '', { code: 4100, msg: 'slug is required', detail: 'slug is required' }],
    ['without source', '?slug=x', { code: 4101, msg: 'source is required', detail: 'source is required' }],
    ['with an empty source', '?slug=x&source=', { code: 4101, msg: 'source is required', detail: 'source is required' }],
    [
      'with a repeated slug',
      '?slug=a&slug=b&source=acme',
      { code: 4000, msg: 'invalid request', detail: 'slug must be given once, as a string' },
    ],
    [
      'with an unknown parameter',
      '?slug=a&source=acme&limit=5',
      { code: 4000, msg: 'invalid request', detail: 'limit is not a known parameter' },
    ],
  ])('answers %s with the exact error envelope', async (_, query, envelope) => {
    const response = await t.http.get(`/oracle/markets/public${query}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(envelope);
  });

  it('reads the records missed together with one statement, and answers each query with its own', async () => {
    await fixtures.partner('zenith');
    const expected = new Map<string, { id: number; source: string; slug: string; status: string; proofs: number }[]>();
    for (let n = 0; n < 5; n++) {
      // The same slug under two sources: the pair, not the slug, picks the record.
      for (const [source, status, proofs] of [['acme', 'resolved', 2], ['zenith', 'monitoring', 0]] as const) {
        const { id } = await fixtures.market(source, { slug: `together-${n}`, status });
        expected.set(`${source} together-${n}`, [{ id, source, slug: `together-${n}`, status, proofs }]);
      }
      expected.set(`acme missing-${n}`, []);
    }
    // Text that means something inside an array literal is only text.
    for (const slug of ['NULL', 'quote"d', 'back\\slash', '{braces},comma', 'émoji-🎲', 'two  spaces']) {
      const { id } = await fixtures.market('acme', { slug });
      expected.set(`acme ${slug}`, [{ id, source: 'acme', slug, status: 'resolved', proofs: 2 }]);
      expected.set(`zenith ${slug}`, []);
    }
    const queries = [...expected.keys()].reverse().map((key) => ({ source: key.slice(0, key.indexOf(' ')), slug: key.slice(key.indexOf(' ') + 1) }));
    const byQuery = (markets: { id: number; source: string; slug: string; status: string; proofs: unknown[] }[]) =>
      markets.map(({ id, source, slug, status, proofs }) => ({ id, source, slug, status, proofs: proofs.length }));

    // Asked in one turn of the event loop, the records are read by one statement.
    const sql = t.app.get(Sql);
    const rows = jest.spyOn(sql, 'rows');
    try {
      const answers = await Promise.all(queries.map((query) => t.app.get(MarketsService).findPublicMarkets(query)));
      expect(rows.mock.calls.filter(([statement]) => statement.text.includes('unnest'))).toHaveLength(1);
      answers.forEach((answer, n) => {
        const markets = expected.get(`${queries[n].source} ${queries[n].slug}`)!;
        expect(byQuery(JSON.parse(answer.json).markets)).toEqual(markets);
        // An unknown market's answer is the one value the cache keeps apart from the records.
        expect(answer === NO_PUBLIC_RECORD).toBe(markets.length === 0);
      });
    } finally {
      rows.mockRestore();
    }

    // And over HTTP, all at once: each answer is its own query's record (cached or not).
    const responses = await Promise.all(queries.map((query) => t.http.get('/oracle/markets/public').query(query)));
    responses.forEach((response, n) => {
      expect(response.body.code).toBe(0);
      expect(byQuery(response.body.data.markets)).toEqual(expected.get(`${queries[n].source} ${queries[n].slug}`));
    });
  });

  it('echoes a sane x-request-id and generates one otherwise', async () => {
    const echoed = await t.http.get('/oracle/markets/public?slug=a&source=acme').set('x-request-id', 'trace-123');
    expect(echoed.headers['x-request-id']).toBe('trace-123');
    const generated = await t.http.get('/oracle/markets/public?slug=a&source=acme').set('x-request-id', 'bad id\twith tabs');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
