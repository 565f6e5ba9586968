import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * append_market_event and file_dispute now return the event's id (a write waits for its own event):
 * a return type CREATE OR REPLACE cannot change. Either way the release's definitions follow (src/schema.ts).
 */
export class EventIdsReturned1765100000000 implements MigrationInterface {
  name = 'EventIdsReturned1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION IF EXISTS file_dispute(bigint, text, text, text, text, text, timestamptz, bigint, text, text)');
    await queryRunner.query('DROP FUNCTION IF EXISTS append_market_event(text, bigint)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.up(queryRunner);
  }
}
