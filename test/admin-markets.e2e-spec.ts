import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fixturesOf, startTestApp, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });
const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
const invalid = (detail: string) => error(4000, 'invalid request', detail);

interface Item {
  id: number;
  slug: string;
  source: string;
  status: string;
}

describe('GET /admin/markets (and the dispute counts)', () => {
  let t: TestApp;
  let reviewerKey: string;
  const ids: Record<string, number> = {};

  /** As `key` (the master key by default; null: no credentials). */
  const get = (query: string, key: string | null = MASTER) => {
    const call = t.http.get(`/admin/markets${query}`);
    return (key === null ? call : call.set('authorization', `Bearer ${key}`)).then((response) => response.body);
  };
  const slugsOf = (body: { data: { markets: Item[] } }) => body.data.markets.map((market) => market.slug);

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_MASTER_KEY: MASTER });
    const fixtures = fixturesOf(t);
    await fixtures.partner('alpha');
    await fixtures.partner('beta');
    // Oldest first; the listing answers newest first.
    for (const [source, slug, status] of [
      ['alpha', 'BTC-above-100k', 'resolved'],
      ['alpha', 'eth/merge_date', 'monitoring'],
      ['beta', 'btc-below-50k', 'disputed'],
      ['beta', '100%-sure', 'closed'],
      ['alpha', 'rain-in-paris', 'monitoring'],
    ] as const) {
      ids[slug] = (await fixtures.market(source, { slug, status })).id;
    }
    const created = await t.http.post('/admin/reviewers').set('authorization', `Bearer ${MASTER}`).send({ name: 'Rae', role: 'reviewer' });
    reviewerKey = created.body.data.api_key;
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers every market newest first, each exactly as the public read shows it', async () => {
    const body = await get('');
    expect(slugsOf(body)).toEqual(['rain-in-paris', '100%-sure', 'btc-below-50k', 'eth/merge_date', 'BTC-above-100k']);
    expect(body.data.next_cursor).toBeNull();
    for (const item of body.data.markets as Item[]) {
      const published = await t.http.get('/oracle/markets/public').query({ source: item.source, slug: item.slug });
      expect(published.body).toEqual(ok({ markets: [item] }));
    }
    expect(body.data.markets.map((market: Item) => market.id)).toEqual(
      ['rain-in-paris', '100%-sure', 'btc-below-50k', 'eth/merge_date', 'BTC-above-100k'].map((slug) => ids[slug]),
    );
    expect(body.data.markets[4].proofs).toHaveLength(2);
  });

  it('filters by source, status and part of the slug (any letter case, % and _ taken literally), combined', async () => {
    expect(slugsOf(await get('?source=beta'))).toEqual(['100%-sure', 'btc-below-50k']);
    expect(slugsOf(await get('?source=%20beta%20'))).toEqual(['100%-sure', 'btc-below-50k']);
    expect(slugsOf(await get('?status=monitoring'))).toEqual(['rain-in-paris', 'eth/merge_date']);
    expect(slugsOf(await get('?q=btc'))).toEqual(['btc-below-50k', 'BTC-above-100k']);
    expect(slugsOf(await get('?q=BTC-A'))).toEqual(['BTC-above-100k']);
    expect(slugsOf(await get('?q=h%2Fm'))).toEqual(['eth/merge_date']);
    expect(slugsOf(await get('?q=%25'))).toEqual(['100%-sure']);
    expect(slugsOf(await get('?q=_'))).toEqual(['eth/merge_date']);
    expect(slugsOf(await get('?q=0%25-'))).toEqual(['100%-sure']);
    expect(slugsOf(await get('?q=%5C'))).toEqual([]);
    expect(slugsOf(await get('?source=alpha&status=resolved&q=btc'))).toEqual(['BTC-above-100k']);
    expect(await get('?source=gamma')).toEqual(ok({ markets: [], next_cursor: null }));
    expect(await get('?source=alpha&status=closed')).toEqual(ok({ markets: [], next_cursor: null }));
  });

  it('pages with keyset cursors that stay correct while markets are created', async () => {
    const first = await get('?limit=2');
    expect(slugsOf(first)).toEqual(['rain-in-paris', '100%-sure']);
    expect(first.data.next_cursor).toEqual(expect.any(String));

    // Created between pages: newer than every market listed, so on no later page.
    const created = await t.http.post('/admin/markets').set('authorization', `Bearer ${MASTER}`).send({ source: 'alpha', slug: 'late' });
    expect(created.body.code).toBe(0);

    const second = await get(`?limit=2&cursor=${first.data.next_cursor}`);
    expect(slugsOf(second)).toEqual(['btc-below-50k', 'eth/merge_date']);
    const third = await get(`?limit=2&cursor=${second.data.next_cursor}`);
    expect(third).toEqual(ok({ markets: [expect.objectContaining({ slug: 'BTC-above-100k' })], next_cursor: null }));

    expect(slugsOf(await get('?limit=1'))).toEqual(['late']);
    const filtered = await get('?source=alpha&limit=1');
    const next = await get(`?source=alpha&limit=5&cursor=${filtered.data.next_cursor}`);
    expect(slugsOf(next)).toEqual(['rain-in-paris', 'eth/merge_date', 'BTC-above-100k']);
    expect(next.data.next_cursor).toBeNull();
  });

  it('is open to reviewers; 4012 without valid admin credentials', async () => {
    expect((await get('?limit=1', reviewerKey)).code).toBe(0);
    expect(await get('', null)).toEqual(error(4012, 'invalid admin credentials'));
    expect(await get('', 'soa_unknown')).toEqual(error(4012, 'invalid admin credentials'));
    const partner = await fixturesOf(t).partner('gamma');
    expect(await get('', partner.apiKey)).toEqual(error(4012, 'invalid admin credentials'));
  });

  it('lets reviewers find markets but not create them (4031)', async () => {
    const reviewer = t.http.post('/admin/markets').set('authorization', `Bearer ${reviewerKey}`).send({ source: 'alpha', slug: 'x' });
    expect((await reviewer).body).toEqual(error(4031, 'forbidden'));
  });

  it.each([
    ['?status=pending', 'status must be one of: monitoring, resolved, disputed, closed'],
    ['?limit=0', 'limit must be an integer from 1 to 100'],
    ['?limit=101', 'limit must be an integer from 1 to 100'],
    ['?limit=ten', 'limit must be an integer from 1 to 100'],
    ['?cursor=ZZZ', 'cursor is not a cursor this service issued'],
    ['?sort=asc', 'sort is not a known field'],
    ['?=x', '"" is not a known field'],
    ['?source=', 'source must be a non-empty string of at most 64 characters'],
    ['?source=%20%20', 'source must be a non-empty string of at most 64 characters'],
    [`?source=${'s'.repeat(65)}`, 'source must be a non-empty string of at most 64 characters'],
    ['?source=a&source=b', 'source must be a non-empty string of at most 64 characters'],
    ['?q=', 'q must be a non-empty string of at most 256 characters'],
    [`?q=${'q'.repeat(257)}`, 'q must be a non-empty string of at most 256 characters'],
    ['?q=a%00', 'q must not contain NUL characters or unpaired surrogates'],
    ['?status=open&q=', 'status must be one of: monitoring, resolved, disputed, closed; q must be a non-empty string of at most 256 characters'],
    ['?limit=0&cursor=A&z=1', 'z is not a known field; limit must be an integer from 1 to 100; cursor is not a cursor this service issued'],
  ])('4000 for %s', async (query, detail) => {
    expect(await get(query)).toEqual(invalid(detail));
  });

  it('is in the OpenAPI document with its query parameters and response', async () => {
    const { body: document } = await t.http.get('/docs-json');
    const operation = document.paths['/admin/markets'].get;
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual(['cursor', 'limit', 'q', 'source', 'status']);
    expect(operation.security).toEqual([{ 'admin-key': [] }]);
    expect(operation.responses['200'].content['application/json'].schema.oneOf[0].properties.data).toEqual({
      $ref: '#/components/schemas/MarketList',
    });
    expect(Object.keys(document.components.schemas.MarketList.properties)).toEqual(['markets', 'next_cursor']);
  });

  it('counts open and closed disputes (zero when there are none); reviewers may read it', async () => {
    const counts = () => t.http.get('/admin/disputes/counts').set('authorization', `Bearer ${MASTER}`).then((response) => response.body);
    expect(await counts()).toEqual(ok({ open: 0, closed: 0 }));

    const fixtures = fixturesOf(t);
    const partner = await fixtures.partner('counted');
    const disputes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const market = await fixtures.market('counted');
      const filed = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partner.apiKey).send({
        market_id: market.id,
        submitter_id: 'u',
        submitter_name: 'U',
        submitter_selection: 'NO',
        reason_text: 'r',
      });
      disputes.push(filed.body.data.dispute_id);
    }
    await t.http.post(`/admin/disputes/${disputes[0]}/decision`).set('authorization', `Bearer ${MASTER}`).send({ type: 'keep', reason_text: 'ok' });
    expect(await counts()).toEqual(ok({ open: 2, closed: 1 }));

    const reviewer = await t.http.post('/admin/reviewers').set('authorization', `Bearer ${MASTER}`).send({ name: 'R', role: 'reviewer' });
    const asReviewer = await t.http.get('/admin/disputes/counts').set('authorization', `Bearer ${reviewer.body.data.api_key}`);
    expect(asReviewer.body).toEqual(ok({ open: 2, closed: 1 }));
    expect((await t.http.get('/admin/disputes/counts')).body).toEqual(error(4012, 'invalid admin credentials'));
  });

  it('cuts a page at 256 KiB of records, whatever its limit, and the cursor goes on from there', async () => {
    await fixturesOf(t).partner('large');
    // 10,000 emoji (40,000 bytes of UTF-8) of reasoning each, the most the admin API takes.
    await t.dataSource.query(
      `INSERT INTO markets (source, slug, status, verdict, confidence, reasoning, resolved_at)
       SELECT 'large', 'large-' || n, 'resolved', 'YES', 'HIGH', repeat($1, 10000), now() FROM generate_series(1, 40) AS n`,
      ['\u{1F600}'],
    );
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const body = await get(`?source=large&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(body.code).toBe(0);
      seen.push(...slugsOf(body));
      sizes.push(body.data.markets.length);
      cursor = body.data.next_cursor;
    }
    expect(sizes.length).toBeGreaterThan(1);
    // 256 KiB holds 6 such records (~40,200 bytes each); the one that passes it is the page's last.
    expect(sizes[0]).toBe(7);
    expect(new Set(seen).size).toBe(40);
    expect(seen).toEqual(Array.from({ length: 40 }, (_, n) => `large-${40 - n}`));
  });

  it('answers 50 markets a page when the query names no limit (contract §4)', async () => {
    await fixturesOf(t).partner('many');
    await t.dataSource.query(`INSERT INTO markets (source, slug) SELECT 'many', 'many-' || n FROM generate_series(1, 51) AS n`);
    const first = await get('?source=many');
    expect(slugsOf(first)).toEqual(Array.from({ length: 50 }, (_, n) => `many-${51 - n}`));
    expect(slugsOf(await get(`?source=many&cursor=${first.data.next_cursor}`))).toEqual(['many-1']);
  });
});
