import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One account per reviewer name, none "master", revoked ones included: decisions and the audit trail
 * name who acted. Clashing accounts but the one in use become "<name> #<id>"; down() keeps the renames.
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
