import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each instance's reader of the change log says how far it has read, at every poll: a write is
 * answered once every live instance has read its event (docs/architecture.md, the change log).
 */
export class ChangeLogReaders1764950000000 implements MigrationInterface {
  name = 'ChangeLogReaders1764950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE change_log_readers (
        instance uuid PRIMARY KEY,
        cursor bigint NOT NULL,
        polled_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE change_log_readers');
  }
}
