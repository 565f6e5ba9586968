import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
const CAFE_NFC = 'caf\u00e9';
const CAFE_NFD = 'cafe\u0301';
const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });
const ok = (data: unknown) => ({ code: 0, msg: 'success', data });

/** Contract §10: names, sources and slugs compare as people read them (UTS #39 skeletons). */
describe('names that read the same (/admin)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_MASTER_KEY: MASTER });
  });

  afterAll(async () => {
    await t.close();
  });

  const post = (path: string, body: object) => t.http.post(path).set('authorization', `Bearer ${MASTER}`).send(body);

  describe('reviewers', () => {
    const taken = error(4093, 'already exists', 'a reviewer account or the master key has that name, or one that reads the same');

    it("4093 for a name that reads as the master key's, in look-alike letters or any letter case", async () => {
      for (const name of ['m\u0430ster', '\uff4daster', 'MASTER', 'M\u0430STER', 'rnaster']) {
        expect((await post('/admin/reviewers', { name, role: 'reviewer' })).body).toEqual(taken);
      }
    });

    it('4093 for a second account whose name reads as the first', async () => {
      const first = await post('/admin/reviewers', { name: 'paypal', role: 'reviewer' });
      expect(first.body).toEqual(ok({ id: expect.any(Number), name: 'paypal', role: 'reviewer', api_key: expect.any(String) }));
      for (const name of ['p\u0430ypal', 'PayPal', 'p\u0430yp\u0430l']) {
        expect((await post('/admin/reviewers', { name, role: 'admin' })).body).toEqual(taken);
      }
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM reviewers WHERE name_skeleton = 'paypal'`);
      expect(n).toBe(1);
    });

    it('4093 for a name that reads as another as written, though not in lowercase (Cyrillic capitals)', async () => {
      for (const name of ['HOTEL', 'BOB']) expect((await post('/admin/reviewers', { name, role: 'reviewer' })).body.code).toBe(0);
      // Cyrillic Н, Т and В lowercase to н, т and в, which read as no Latin letter.
      for (const name of ['\u041dOTEL', 'HO\u0422EL', '\u0412OB']) {
        expect((await post('/admin/reviewers', { name, role: 'reviewer' })).body).toEqual(taken);
      }
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM reviewers WHERE name_written_skeleton IN ('HOTEL', 'BOB')`);
      expect(n).toBe(2);
    });

    it('stores the name in NFC, and tells apart names that read differently', async () => {
      const created = await post('/admin/reviewers', { name: `Zo\u00eb ${CAFE_NFD}`, role: 'reviewer' });
      expect(created.body).toEqual(ok({ id: expect.any(Number), name: `Zo\u00eb ${CAFE_NFC}`, role: 'reviewer', api_key: expect.any(String) }));
      expect((await post('/admin/reviewers', { name: `Zo\u00eb cafe`, role: 'reviewer' })).body.code).toBe(0);
      expect((await post('/admin/reviewers', { name: `Zo\u00eb ${CAFE_NFC}`, role: 'reviewer' })).body).toEqual(taken);
      const [event] = await t.dataSource.query(`SELECT details FROM audit_events WHERE target = $1`, [`reviewer:${created.body.data.id}`]);
      expect(event.details.name).toBe(`Zo\u00eb ${CAFE_NFC}`);
    });

    it('takes a name whose skeleton outgrows an index entry (one ﷺ is 18 letters)', async () => {
      const name = '\ufdfa'.repeat(200);
      expect((await post('/admin/reviewers', { name, role: 'reviewer' })).body.code).toBe(0);
      expect((await post('/admin/reviewers', { name, role: 'reviewer' })).body).toEqual(taken);
    });
  });

  describe('partners', () => {
    const taken = (field: string) => error(4093, 'already exists', `a partner has that ${field}, or one that reads the same`);

    it('4093 for a source or a name that reads as another partner’s; letter case still counts in sources', async () => {
      const created = await post('/admin/partners', { source: 'acme1', name: 'Acme' });
      expect(created.body).toEqual(ok({ source: 'acme1', name: 'Acme', key_id: expect.any(Number), api_key: expect.any(String) }));
      expect((await post('/admin/partners', { source: 'acmel', name: 'Acme Markets' })).body).toEqual(taken('source'));
      expect((await post('/admin/partners', { source: 'acmeI', name: 'Acme Markets' })).body).toEqual(taken('source'));
      expect((await post('/admin/partners', { source: 'globex', name: '\u0391cme' })).body).toEqual(taken('name'));
      expect((await post('/admin/partners', { source: 'ACME1', name: 'ACME' })).body.code).toBe(0);
      const listed = await t.http.get('/admin/partners').set('authorization', `Bearer ${MASTER}`);
      const sources = listed.body.data.partners.map((partner: { source: string }) => partner.source);
      expect(sources.filter((source: string) => source.toLowerCase().startsWith('acme'))).toEqual(['acme1', 'ACME1']);
    });

    it('stores the name in NFC', async () => {
      const created = await post('/admin/partners', { source: 'cafe-co', name: `${CAFE_NFD} Co` });
      expect(created.body.data.name).toBe(`${CAFE_NFC} Co`);
    });
  });

  describe('markets', () => {
    const taken = error(4093, 'already exists', 'the source has a market with that slug, or one that reads the same');

    beforeAll(async () => {
      for (const source of ['slugs-a', 'slugs-b']) expect((await post('/admin/partners', { source, name: `Partner ${source}` })).body.code).toBe(0);
    });

    it('4093 for a slug that reads as another of its source, in NFC or NFD; the same slug in another source is its own', async () => {
      const created = await post('/admin/markets', { source: 'slugs-a', slug: CAFE_NFC });
      expect(created.body).toEqual(
        ok({
          id: expect.any(Number),
          source: 'slugs-a',
          slug: CAFE_NFC,
          status: 'monitoring',
          verdict: null,
          resolved_at: null,
          confidence: null,
          reasoning: null,
          proofs: [],
          disputes: null,
        }),
      );
      for (const slug of [CAFE_NFD, `/${CAFE_NFC}/`, 'c\u0430f\u00e9']) {
        expect((await post('/admin/markets', { source: 'slugs-a', slug })).body).toEqual(taken);
      }
      const other = await post('/admin/markets', { source: 'slugs-b', slug: CAFE_NFD });
      expect(other.body.data).toMatchObject({ source: 'slugs-b', slug: CAFE_NFC });
      expect((await post('/admin/markets', { source: 'slugs-a', slug: 'cafe' })).body.code).toBe(0);
    });

    it('stores a slug sent in NFD in NFC, where partners find it', async () => {
      await post('/admin/markets', { source: 'slugs-a', slug: `cr\u00e8me-${CAFE_NFD}`.normalize('NFD') });
      const read = await t.http.get(`/oracle/markets/public?source=slugs-a&slug=${encodeURIComponent(`cr\u00e8me-${CAFE_NFC}`)}`);
      expect(read.body.data.markets).toEqual([expect.objectContaining({ slug: `cr\u00e8me-${CAFE_NFC}` })]);
    });
  });
});
