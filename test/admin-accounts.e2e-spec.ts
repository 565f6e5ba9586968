import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { EntitySubscriberInterface } from 'typeorm';
import { startTestApp, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });
const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
const invalid = (detail: string) => error(4000, 'invalid request', detail);
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const CURSOR = expect.stringMatching(/^[0-9a-z]{1,12}$/);

interface KeyRow {
  id: string;
  prefix: string;
  revoked: boolean;
}

/** GET /admin/reviewers, /admin/partners and /admin/partners/{source}/keys: pages, search, roles. */
describe('paged account listings (/admin/reviewers, /admin/partners, a partner\'s keys)', () => {
  let t: TestApp;
  let reviewerKey: string;

  /** As `key` (the master key by default; null: no credentials). */
  const get = (path: string, key: string | null = MASTER) => {
    const call = t.http.get(path);
    return (key === null ? call : call.set('authorization', `Bearer ${key}`)).then((response) => response.body);
  };
  const post = (path: string, body?: object) =>
    t.http.post(path).set('authorization', `Bearer ${MASTER}`).send(body).then((response) => response.body);

  /** A partner's keys, newest first, as the database holds them. */
  const keysOf = (source: string): Promise<KeyRow[]> =>
    t.dataSource.query(
      `SELECT k.id, k.prefix, k.revoked_at IS NOT NULL AS revoked FROM api_keys k JOIN partners p ON p.id = k.partner_id
       WHERE p.source = $1 ORDER BY k.id DESC`,
      [source],
    );
  const listed = (key: KeyRow) => ({ key_id: Number(key.id), prefix: key.prefix, created_at: ISO, revoked_at: key.revoked ? ISO : null });

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_MASTER_KEY: MASTER });
    reviewerKey = (await post('/admin/reviewers', { name: 'Rae', role: 'reviewer' })).data.api_key;
    for (const [name, role] of [['Ada', 'admin'], ['Bo', 'reviewer'], ['Cy', 'reviewer']]) expect((await post('/admin/reviewers', { name, role })).code).toBe(0);
    for (const [source, name] of [
      ['alpha-co', 'Alpha Markets'],
      ['beta', 'Beta 100% Sure'],
      ['gamma_x', 'Gamma'],
      ['delta', 'Delta Markets'],
    ]) {
      expect((await post('/admin/partners', { source, name })).code).toBe(0);
    }
  });

  afterAll(async () => {
    await t.close();
  });

  describe('GET /admin/reviewers', () => {
    it('pages the accounts oldest first, with keyset cursors; the last page says next_cursor null', async () => {
      const ids: string[] = (await t.dataSource.query('SELECT id FROM reviewers ORDER BY id')).map((row: { id: string }) => row.id);
      await t.http.delete(`/admin/reviewers/${ids[2]}`).set('authorization', `Bearer ${MASTER}`);
      const account = (id: string, name: string, role: string, revoked = false) => ({ id: Number(id), name, role, created_at: ISO, revoked_at: revoked ? ISO : null });

      const first = await get('/admin/reviewers?limit=2');
      expect(first).toEqual(ok({ reviewers: [account(ids[0], 'Rae', 'reviewer'), account(ids[1], 'Ada', 'admin')], next_cursor: CURSOR }));
      const second = await get(`/admin/reviewers?limit=2&cursor=${first.data.next_cursor}`);
      expect(second).toEqual(ok({ reviewers: [account(ids[2], 'Bo', 'reviewer', true), account(ids[3], 'Cy', 'reviewer')], next_cursor: null }));
      expect(await get('/admin/reviewers')).toEqual(ok({ reviewers: [...first.data.reviewers, ...second.data.reviewers], next_cursor: null }));
      expect(await get(`/admin/reviewers?cursor=${second.data.reviewers[1].id.toString(36)}`)).toEqual(ok({ reviewers: [], next_cursor: null }));
    });
  });

  describe('GET /admin/partners', () => {
    it('pages the partners in registration order, each with its keys, newest first', async () => {
      const partner = async (source: string, name: string) => ({ source, name, created_at: ISO, keys: (await keysOf(source)).map(listed) });
      const first = await get('/admin/partners?limit=3');
      expect(first).toEqual(
        ok({
          partners: [await partner('alpha-co', 'Alpha Markets'), await partner('beta', 'Beta 100% Sure'), await partner('gamma_x', 'Gamma')],
          next_cursor: CURSOR,
        }),
      );
      expect(await get(`/admin/partners?limit=3&cursor=${first.data.next_cursor}`)).toEqual(ok({ partners: [await partner('delta', 'Delta Markets')], next_cursor: null }));
      expect(first.data.partners[0].keys).toHaveLength(1);
    });

    it('finds partners by part of the source or the name, in any letter case; % and _ are plain characters', async () => {
      const sources = async (query: string) => {
        const body = await get(`/admin/partners?${query}`);
        expect(body.data.next_cursor).toBeNull();
        return body.data.partners.map((partner: { source: string }) => partner.source);
      };
      expect(await sources('q=ALPHA')).toEqual(['alpha-co']);
      expect(await sources('q=markets')).toEqual(['alpha-co', 'delta']);
      expect(await sources('q=a-c')).toEqual(['alpha-co']);
      expect(await sources('q=%25')).toEqual(['beta']);
      expect(await sources('q=_')).toEqual(['gamma_x']);
      expect(await sources('q=a%25')).toEqual([]);
      expect(await sources('q=%5C')).toEqual([]);
      expect(await get('/admin/partners?q=nobody')).toEqual(ok({ partners: [], next_cursor: null }));
      // The search pages too, from where the cursor left it.
      const page = await get('/admin/partners?q=markets&limit=1');
      expect(page.data.partners.map((partner: { source: string }) => partner.source)).toEqual(['alpha-co']);
      expect((await get(`/admin/partners?q=markets&limit=1&cursor=${page.data.next_cursor}`)).data).toEqual({ partners: [expect.objectContaining({ source: 'delta' })], next_cursor: null });
    });
  });

  describe('a partner with 25 keys', () => {
    let keys: KeyRow[];

    beforeAll(async () => {
      expect((await post('/admin/partners', { source: 'keyring', name: 'Keyring' })).code).toBe(0);
      for (let n = 1; n < 25; n++) expect((await post('/admin/partners/keyring/keys')).code).toBe(0);
      keys = await keysOf('keyring');
      expect((await t.http.delete(`/admin/partners/keyring/keys/${keys[3].id}`).set('authorization', `Bearer ${MASTER}`)).body.code).toBe(0);
      keys = await keysOf('keyring');
    });

    it('lists its 20 newest keys with it in GET /admin/partners', async () => {
      expect(keys).toHaveLength(25);
      expect(await get('/admin/partners?q=keyring')).toEqual(
        ok({ partners: [{ source: 'keyring', name: 'Keyring', created_at: ISO, keys: keys.slice(0, 20).map(listed) }], next_cursor: null }),
      );
    });

    it('lists all 25 on their own, newest first, over two pages (none used yet: last_used_at null)', async () => {
      const withUse = (key: KeyRow) => ({ ...listed(key), last_used_at: null });
      const first = await get('/admin/partners/keyring/keys?limit=20');
      expect(first).toEqual(ok({ keys: keys.slice(0, 20).map(withUse), next_cursor: CURSOR }));
      const rest = await get(`/admin/partners/keyring/keys?limit=20&cursor=${first.data.next_cursor}`);
      expect(rest).toEqual(ok({ keys: keys.slice(20).map(withUse), next_cursor: null }));
      expect(await get('/admin/partners/keyring/keys')).toEqual(ok({ keys: keys.map(withUse), next_cursor: null }));
      expect(await get('/admin/partners/keyring/keys?cursor=0')).toEqual(ok({ keys: [], next_cursor: null }));
    });

    it('shows when a key last authenticated a request', async () => {
      const issued = (await post('/admin/partners/keyring/keys')).data;
      expect((await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', issued.api_key).send({})).body.code).toBe(4000);
      // Written once the request is answered (and at most once a minute per key): wait for it.
      let newest = (await get('/admin/partners/keyring/keys?limit=1')).data.keys[0];
      for (let tries = 0; newest.last_used_at === null && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        newest = (await get('/admin/partners/keyring/keys?limit=1')).data.keys[0];
      }
      expect(newest).toEqual({ key_id: issued.key_id, prefix: issued.api_key.slice(0, 12), created_at: ISO, revoked_at: null, last_used_at: ISO });
    });
  });

  it('4042 for the keys of a partner that does not exist', async () => {
    for (const path of ['/admin/partners/ghost/keys', '/admin/partners/ghost/keys?cursor=5', '/admin/partners/%00/keys', '/admin/partners/ALPHA-CO/keys']) {
      expect(await get(path)).toEqual(error(4042, 'partner not found'));
    }
  });

  describe.each(['/admin/reviewers', '/admin/partners', '/admin/partners/alpha-co/keys'])('%s', (path) => {
    it('is for admins: 4031 for a reviewer, 4012 without valid credentials', async () => {
      expect(await get(path, reviewerKey)).toEqual(error(4031, 'forbidden'));
      expect(await get(path, null)).toEqual(error(4012, 'invalid admin credentials'));
      expect(await get(path, 'soa_unknown')).toEqual(error(4012, 'invalid admin credentials'));
    });

    it.each([
      ['?limit=0', 'limit must be an integer from 1 to 100'],
      ['?limit=101', 'limit must be an integer from 1 to 100'],
      ['?limit=x', 'limit must be an integer from 1 to 100'],
      ['?limit=1&limit=2', 'limit must be an integer from 1 to 100'],
      ['?cursor=ZZZ', 'cursor is not a cursor this service issued'],
      ['?cursor=a&cursor=b', 'cursor is not a cursor this service issued'],
      [`?cursor=${'z'.repeat(13)}`, 'cursor is not a cursor this service issued'],
      ['?sort=asc', 'sort is not a known field'],
      ['?limit=0&cursor=A&z=1', 'z is not a known field; limit must be an integer from 1 to 100; cursor is not a cursor this service issued'],
    ])('4000 for %s', async (query, detail) => {
      expect(await get(`${path}${query}`)).toEqual(invalid(detail));
    });
  });

  it.each([
    ['/admin/partners?q=', 'q must be a non-empty string of at most 200 characters'],
    [`/admin/partners?q=${'q'.repeat(201)}`, 'q must be a non-empty string of at most 200 characters'],
    ['/admin/partners?q=a&q=b', 'q must be a non-empty string of at most 200 characters'],
    ['/admin/partners?q=a%00', 'q must not contain NUL characters or unpaired surrogates'],
    ['/admin/reviewers?q=a', 'q is not a known field'],
    ['/admin/partners/alpha-co/keys?q=a', 'q is not a known field'],
  ])('4000 for %s', async (path, detail) => {
    expect(await get(path)).toEqual(invalid(detail));
  });

  it('is in the OpenAPI document with its query parameters and pages', async () => {
    const { body: document } = await t.http.get('/docs-json');
    for (const [path, parameters, data] of [
      ['/admin/reviewers', ['cursor', 'limit'], 'ReviewerList'],
      ['/admin/partners', ['cursor', 'limit', 'q'], 'PartnerList'],
      ['/admin/partners/{source}/keys', ['cursor', 'limit', 'source'], 'PartnerKeyPage'],
    ] as const) {
      const operation = document.paths[path].get;
      expect(operation.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual(parameters);
      expect(operation.responses['200'].content['application/json'].schema.oneOf[0].properties.data).toEqual({ $ref: `#/components/schemas/${data}` });
      expect(document.components.schemas[data].required).toEqual(expect.arrayContaining(['next_cursor']));
    }
    expect(document.components.schemas.Partner.properties.keys.maxItems).toBe(20);
  });

  describe('a partner with 100,000 keys', () => {
    const KEYS = 100_000;

    beforeAll(async () => {
      expect((await post('/admin/partners', { source: 'bulk', name: 'Bulk' })).code).toBe(0);
      // Without the 2 s the service's role gives a statement by default: this one may take more.
      const client = new pg.Client({ connectionString: t.databaseUrl, options: '-c statement_timeout=0' });
      await client.connect();
      try {
        await client.query(
          `INSERT INTO api_keys (partner_id, key_hash, prefix)
           SELECT p.id, lpad(to_hex(n), 64, '0'), 'sok_' || n FROM partners p, generate_series(1, $1) AS n WHERE p.source = 'bulk'`,
          [KEYS - 1],
        );
      } finally {
        await client.end();
      }
    }, 30_000);

    /** The plans of the statements `work` ran on the service's DataSource, as PostgreSQL runs them again. */
    async function plansOf(work: () => Promise<unknown>): Promise<PlanNode[]> {
      const ran: { text: string; values?: unknown[] }[] = [];
      const listener: EntitySubscriberInterface = { beforeQuery: (event) => void ran.push({ text: event.query, values: event.parameters as unknown[] | undefined }) };
      t.dataSource.subscribers.push(listener);
      try {
        await work();
      } finally {
        t.dataSource.subscribers.splice(t.dataSource.subscribers.indexOf(listener), 1);
      }
      const plans: PlanNode[] = [];
      for (const { text, values } of ran) {
        const [{ 'QUERY PLAN': [explained] }] = await t.dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
        plans.push(explained.Plan);
      }
      return plans;
    }

    it('answers GET /admin/partners promptly, reading 20 of them from an index', async () => {
      const started = performance.now();
      const plans = await plansOf(async () => expect((await get('/admin/partners?q=bulk')).data.partners[0].keys).toHaveLength(20));
      expect(performance.now() - started).toBeLessThan(2000);
      expect(keyReads(plans)).toEqual([{ node: 'Index Scan Backward', index: 'ix_api_keys_partner_keys', rows: 20 }]);
    });

    it('pages its keys from an index, however deep the page', async () => {
      const [{ id }] = await t.dataSource.query(`SELECT min(k.id) + 100 AS id FROM api_keys k JOIN partners p ON p.id = k.partner_id WHERE p.source = 'bulk'`);
      const started = performance.now();
      const plans = await plansOf(async () => {
        const page = await get(`/admin/partners/bulk/keys?limit=100&cursor=${BigInt(id).toString(36)}`);
        expect(page.data.keys).toHaveLength(100);
        expect(page.data.next_cursor).toBeNull();
        expect((await get('/admin/partners/bulk/keys?limit=100')).data.keys[0]).toEqual(expect.objectContaining({ prefix: `sok_${KEYS - 1}` }));
      });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(keyReads(plans)).toEqual([
        { node: 'Index Scan Backward', index: 'ix_api_keys_partner_keys', rows: 100 },
        { node: 'Index Scan Backward', index: 'ix_api_keys_partner_keys', rows: 101 },
      ]);
    });
  });
});

interface PlanNode {
  'Node Type': string;
  'Scan Direction'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** How the plans read api_keys: each scan's kind, its index, and the rows it read (kept or filtered out). */
function keyReads(plans: PlanNode[]): { node: string; index?: string; rows: number }[] {
  const reads: { node: string; index?: string; rows: number }[] = [];
  const visit = (node: PlanNode) => {
    if (node['Relation Name'] === 'api_keys') {
      reads.push({
        node: node['Scan Direction'] === 'Backward' ? `${node['Node Type']} Backward` : node['Node Type'],
        index: node['Index Name'],
        rows: (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'],
      });
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  plans.forEach(visit);
  return reads;
}
