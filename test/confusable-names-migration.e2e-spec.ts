import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { skeleton } from '../src/common/confusable-skeleton';
import { databaseBefore, type MigrationDatabase } from './support/migration-database';

const MIGRATION = 'ConfusableNames1764600000000';
const CAFE_NFC = 'caf\u00e9';
const CAFE_NFD = 'cafe\u0301';

/** Rows written under the schema from before the migration, then the migration run on them. */
describe('the ConfusableNames migration, on names that read the same', () => {
  let database: MigrationDatabase;
  const query = <T = Record<string, unknown>>(sql: string, parameters?: unknown[]): Promise<T[]> => database.query<T>(sql, parameters);
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    database = await databaseBefore(MIGRATION);

    const reviewers: [string, string, boolean][] = [
      ['paypal', 'paypal', false],
      ['p\u0430ypal', 'paypalCyrillic', false],
      ['\uff4daster', 'fullwidthMaster', false],
      [CAFE_NFD, 'cafeNfd', false],
      [CAFE_NFC, 'cafeNfcRevoked', true],
      ['Omar', 'omar', false],
    ];
    for (const [i, [name, label, revoked]] of reviewers.entries()) {
      const [row] = await query<{ id: string }>(
        `INSERT INTO reviewers (name, role, key_hash, prefix, revoked_at) VALUES ($1, 'reviewer', $2, 'p', CASE WHEN $3 THEN now() END) RETURNING id`,
        [name, String(i).repeat(64), revoked],
      );
      ids[label] = row.id;
    }
    for (const [source, name, label] of [
      ['acme1', 'Acme', 'acme1'],
      ['acmel', 'Acme Markets', 'acmel'],
      ['globex', '\u0391cme', 'globex'], // Greek capital alpha
      ['initech', 'Initech', 'initech'],
    ]) {
      ids[label] = (await query<{ id: string }>('INSERT INTO partners (source, name) VALUES ($1, $2) RETURNING id', [source, name]))[0].id;
    }
    const market = async (source: string, slug: string) =>
      (await query<{ id: string }>('INSERT INTO markets (source, slug) VALUES ($1, $2) RETURNING id', [source, slug]))[0].id;
    ids.nfd = await market('acme1', CAFE_NFD);
    // More than one batch of the migration's between the twins.
    await query(`INSERT INTO markets (source, slug) SELECT 'initech', 'filler-' || n FROM generate_series(1, 1200) AS n`);
    ids.nfc = await market('acme1', CAFE_NFC);
    ids.otherSource = await market('acmel', CAFE_NFC);
    await database.up();
  });

  afterAll(async () => {
    await database?.drop();
  });

  const reviewerNames = async () => (await query<{ name: string }>('SELECT name FROM reviewers ORDER BY id')).map((row) => row.name);

  it('renames reviewer twins but the one in use, names reading as master included, and puts names in NFC', async () => {
    expect(await reviewerNames()).toEqual([
      `paypal #${ids.paypal}`,
      'p\u0430ypal',
      `\uff4daster #${ids.fullwidthMaster}`,
      CAFE_NFC,
      `${CAFE_NFC} #${ids.cafeNfcRevoked}`,
      'Omar',
    ]);
    const [{ unset }] = await query<{ unset: number }>('SELECT count(*)::int AS unset FROM reviewers WHERE name_skeleton IS NULL');
    expect(unset).toBe(0);
  });

  it('keeps partner sources as stored, the oldest holding the skeleton; renames partner name twins but the oldest', async () => {
    const partners = await query('SELECT id, source, name, source_skeleton, name_skeleton FROM partners ORDER BY id');
    expect(partners).toEqual([
      { id: ids.acme1, source: 'acme1', name: 'Acme', source_skeleton: skeleton('acme1'), name_skeleton: skeleton('Acme') },
      { id: ids.acmel, source: 'acmel', name: 'Acme Markets', source_skeleton: null, name_skeleton: skeleton('Acme Markets') },
      { id: ids.globex, source: 'globex', name: `\u0391cme #${ids.globex}`, source_skeleton: skeleton('globex'), name_skeleton: skeleton(`Acme #${ids.globex}`) },
      { id: ids.initech, source: 'initech', name: 'Initech', source_skeleton: skeleton('initech'), name_skeleton: skeleton('Initech') },
    ]);
  });

  it('keeps slugs as stored, the oldest of twins in one source holding the skeleton', async () => {
    const markets = await query('SELECT id, source, slug, slug_skeleton FROM markets WHERE id = ANY($1) ORDER BY id', [[ids.nfd, ids.nfc, ids.otherSource]]);
    expect(markets).toEqual([
      { id: ids.nfd, source: 'acme1', slug: CAFE_NFD, slug_skeleton: skeleton(CAFE_NFC) },
      { id: ids.nfc, source: 'acme1', slug: CAFE_NFC, slug_skeleton: null },
      { id: ids.otherSource, source: 'acmel', slug: CAFE_NFC, slug_skeleton: skeleton(CAFE_NFC) },
    ]);
    const [{ fillers }] = await query<{ fillers: number }>(`SELECT count(*)::int AS fillers FROM markets WHERE slug_skeleton IS NOT NULL AND source = 'initech'`);
    expect(fillers).toBe(1200);
  });

  it('leaves indexes that refuse a new twin of a kept skeleton', async () => {
    await expect(
      query(`INSERT INTO markets (source, slug, slug_skeleton) VALUES ('acme1', $1, $2)`, [`${CAFE_NFC}-`, skeleton(CAFE_NFC)]),
    ).rejects.toThrow(/uq_markets_source_slug_skeleton/);
    await expect(query(`INSERT INTO partners (source, name, source_skeleton) VALUES ('acmeI', 'x', $1)`, [skeleton('acmeI')])).rejects.toThrow(
      /uq_partners_source_skeleton/,
    );
  });

  it('goes down and up again to the same rows, announcing no change of a public record', async () => {
    const snapshot = () =>
      Promise.all([
        query('SELECT * FROM reviewers ORDER BY id'),
        query('SELECT * FROM partners ORDER BY id'),
        query('SELECT id, slug, slug_skeleton FROM markets ORDER BY id'),
      ]);
    const before = await snapshot();
    await database.down();
    const columns = await query(`SELECT column_name FROM information_schema.columns WHERE column_name LIKE '%skeleton'`);
    expect(columns).toEqual([]);
    const listener = new pg.Client({ connectionString: database.url });
    const announced: string[] = [];
    await listener.connect();
    listener.on('notification', (notification) => announced.push(notification.payload ?? ''));
    await listener.query('LISTEN market_changed');
    try {
      await database.up();
      await listener.query('SELECT 1'); // any announcement of the commit has arrived before this answer
    } finally {
      await listener.end();
    }
    expect(announced).toEqual([]);
    // The announcements' trigger it switched off for its backfill is gone with the migrations after it (ChangeLog).
    expect(await query(`SELECT tgenabled FROM pg_trigger WHERE tgname = 'tr_markets_changed'`)).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });
});
