import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reviewer names are unique whatever their letter case, and none is "master" in any case: the
 * back office shows `decided_by` and the audit trail's actor by name, and "Alice" beside "alice"
 * (or "Master" beside the master key's "master") read as one person. As in
 * UniqueReviewerNames1764100000000, where names now clash the account in use keeps its name (the
 * newest not revoked, else the newest) and the others become "<name> #<id>"; should such a name
 * exist too, the index fails and the migration rolls back whole. down() restores the
 * case-sensitive constraint; the renames are not undone.
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
