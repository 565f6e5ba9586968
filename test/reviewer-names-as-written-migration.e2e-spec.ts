import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { skeleton } from '../src/common/confusable-skeleton';
import { databaseBefore, type MigrationDatabase } from './support/migration-database';

const MIGRATION = 'ReviewerNamesAsWritten1765100000000';
// MIKEY is revoked and its Cyrillic-М twin in use; BOB and its Cyrillic-В twin are both in use, the twin the newest.
const NAMES = ['MIKEY', '\u041cIKEY', 'BOB', '\u0412OB', 'Ann'];

describe('the ReviewerNamesAsWritten migration, on accounts whose names read alike only as written', () => {
  let database: MigrationDatabase;
  const accounts = () => database.query('SELECT name, name_written_skeleton FROM reviewers ORDER BY id');

  beforeAll(async () => {
    database = await databaseBefore(MIGRATION);
    await database.query(
      `INSERT INTO reviewers (name, role, key_hash, prefix, revoked_at, name_skeleton)
      SELECT n.name, 'reviewer', repeat(n.at::text, 64), 'p', CASE WHEN n.at = 1 THEN now() END, 'caseless ' || n.at
      FROM unnest($1::text[]) WITH ORDINALITY AS n(name, at) ORDER BY n.at`,
      [NAMES],
    );
    await database.up();
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('gives the skeleton to the twin in use (the newest not revoked), the others none, and renames nobody', async () => {
    expect(await accounts()).toEqual([
      { name: 'MIKEY', name_written_skeleton: null },
      { name: '\u041cIKEY', name_written_skeleton: skeleton('MIKEY') },
      { name: 'BOB', name_written_skeleton: null },
      { name: '\u0412OB', name_written_skeleton: skeleton('BOB') },
      { name: 'Ann', name_written_skeleton: skeleton('Ann') },
    ]);
  });

  it('leaves an index that refuses a new twin of a held skeleton', async () => {
    await expect(
      database.query(
        `INSERT INTO reviewers (name, role, key_hash, prefix, name_skeleton, name_written_skeleton) VALUES ('MIKEY 2', 'reviewer', $1, 'p', 'x', $2)`,
        ['f'.repeat(64), skeleton('MIKEY')],
      ),
    ).rejects.toThrow(/uq_reviewers_name_written_skeleton/);
  });

  it('goes down and up again to the same rows', async () => {
    const before = await accounts();
    await database.down();
    expect(await database.query(`SELECT 1 FROM information_schema.columns WHERE column_name = 'name_written_skeleton'`)).toEqual([]);
    await database.up();
    expect(await accounts()).toEqual(before);
  });
});
