import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One account per reviewer name, and none named like the master key's actor ("master"):
 * decisions (`decided_by`) and the audit trail record who acted by name, and two accounts of one
 * name made that ambiguous. Names stay taken once revoked, for the same reason. Where names were
 * shared, the account in use keeps it (the newest not revoked, else the newest) and the others
 * become "<name> #<id>"; what they decided before keeps the name it was recorded under. Should
 * such a name already exist, the constraint fails and the migration rolls back whole: the
 * service does not start until an operator renames one. down() drops the constraint only: the
 * renames are not undone.
 */
export class UniqueReviewerNames1764100000000 implements MigrationInterface {
  name = 'UniqueReviewerNames1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE reviewers r SET name = r.name || ' #' || r.id
      FROM (SELECT id, row_number() OVER (PARTITION BY name ORDER BY revoked_at IS NULL DESC, id DESC) AS rank FROM reviewers) k
      WHERE k.id = r.id AND (r.name = 'master' OR k.rank > 1)`);
    await queryRunner.query(`ALTER TABLE reviewers ADD CONSTRAINT uq_reviewers_name UNIQUE (name)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE reviewers DROP CONSTRAINT uq_reviewers_name`);
  }
}
