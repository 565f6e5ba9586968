import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The review queue lists open disputes before closed ones, each oldest first (contract §4,
 * "oldest open first"): its pages are read from this index in that order, from a place
 * (closed, id), whichever statuses are listed.
 */
export class DisputeQueueOrder1764200000000 implements MigrationInterface {
  name = 'DisputeQueueOrder1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX ix_disputes_queue ON disputes ((status = 'closed'), id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX ix_disputes_queue`);
  }
}
