import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One account per reviewer name, and none named like the master key's actor ("master"):
 * decisions (`decided_by`) and the audit trail record who acted by name, and two accounts of one
 * name made that ambiguous. Where names were shared, the oldest account keeps it and the others
 * become "<name> #<id>"; what they decided before keeps the name it was recorded under.
 */
export class UniqueReviewerNames1764100000000 implements MigrationInterface {
  name = 'UniqueReviewerNames1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE reviewers r SET name = r.name || ' #' || r.id
      WHERE r.name = 'master' OR EXISTS (SELECT 1 FROM reviewers o WHERE o.name = r.name AND o.id < r.id)`);
    await queryRunner.query(`ALTER TABLE reviewers ADD CONSTRAINT uq_reviewers_name UNIQUE (name)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE reviewers DROP CONSTRAINT uq_reviewers_name`);
  }
}
