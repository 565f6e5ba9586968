import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reviewer names unique whatever their letter case ("Alice" and "alice" read as one person), none
 * "master" in any case; clashes renamed as in UniqueReviewerNames. down() keeps the renames.
 */
export class ReviewerNamesIgnoreCase1764300000000 implements MigrationInterface {
  name = 'ReviewerNamesIgnoreCase1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE reviewers r SET name = r.name || ' #' || r.id
      FROM (SELECT id, row_number() OVER (PARTITION BY lower(name) ORDER BY revoked_at IS NULL DESC, id DESC) AS rank FROM reviewers) k
      WHERE k.id = r.id AND (lower(r.name) = 'master' OR k.rank > 1)`);
    await queryRunner.query(`ALTER TABLE reviewers DROP CONSTRAINT uq_reviewers_name`);
    await queryRunner.query(`CREATE UNIQUE INDEX uq_reviewers_name ON reviewers (lower(name))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX uq_reviewers_name`);
    await queryRunner.query(`ALTER TABLE reviewers ADD CONSTRAINT uq_reviewers_name UNIQUE (name)`);
  }
}
