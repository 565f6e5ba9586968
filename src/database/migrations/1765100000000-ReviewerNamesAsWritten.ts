import type { MigrationInterface, QueryRunner } from 'typeorm';
import { skeleton } from '../../common/confusable-skeleton';

/** The master key's name, as it was when this migration was written. */
const MASTER = 'master';
const BATCH = 1000;

/**
 * Reviewer names also compare by the skeleton of the name as written (contract §10): `МIKEY`, with a
 * Cyrillic М, reads as `MIKEY`, though their lowercase forms do not read alike. Of existing twins the
 * one in use (newest not revoked, else newest) holds it and the others' is NULL; nobody is renamed.
 */
export class ReviewerNamesAsWritten1765100000000 implements MigrationInterface {
  name = 'ReviewerNamesAsWritten1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE reviewers ADD COLUMN name_written_skeleton text');
    const rows: { id: string; name: string }[] = await queryRunner.query(
      'SELECT id, name FROM reviewers ORDER BY revoked_at IS NULL DESC, id DESC',
    );
    const held = new Set([skeleton(MASTER)]);
    const holders: [string, string][] = [];
    for (const row of rows) {
      const key = skeleton(row.name);
      if (held.has(key)) continue;
      held.add(key);
      holders.push([row.id, key]);
    }
    for (let start = 0; start < holders.length; start += BATCH) {
      const batch = holders.slice(start, start + BATCH);
      await queryRunner.query(
        `UPDATE reviewers r SET name_written_skeleton = u.skeleton
        FROM unnest($1::bigint[], $2::text[]) AS u(id, skeleton) WHERE r.id = u.id`,
        [batch.map(([id]) => id), batch.map(([, key]) => key)],
      );
    }
    // On the md5, as uq_reviewers_name_skeleton: a skeleton can outgrow a btree entry.
    await queryRunner.query('CREATE UNIQUE INDEX uq_reviewers_name_written_skeleton ON reviewers (md5(name_written_skeleton))');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The index goes with its column.
    await queryRunner.query('ALTER TABLE reviewers DROP COLUMN name_written_skeleton');
  }
}
