import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change log's columns in types TypeORM's entities can declare: a transaction id as a bigint (xid8 is 64 bits,
 * epoch and xid), WAL positions as their text. Written by hand: TypeORM would drop and re-add the columns.
 */
export class ChangeLogPortableTypes1765200000000 implements MigrationInterface {
  name = 'ChangeLogPortableTypes1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION current_txid() RETURNS bigint VOLATILE LANGUAGE sql AS $$ SELECT pg_current_xact_id()::text::bigint $$`);
    await queryRunner.query(`
      ALTER TABLE market_events
        ALTER COLUMN txid DROP DEFAULT,
        ALTER COLUMN txid TYPE bigint USING txid::text::bigint,
        ALTER COLUMN txid SET DEFAULT current_txid(),
        ALTER COLUMN sequenced_lsn TYPE text USING sequenced_lsn::text`);
    await queryRunner.query(`ALTER TABLE change_log_head ALTER COLUMN last_lsn TYPE text USING last_lsn::text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE change_log_head ALTER COLUMN last_lsn TYPE pg_lsn USING last_lsn::pg_lsn`);
    await queryRunner.query(`
      ALTER TABLE market_events
        ALTER COLUMN txid DROP DEFAULT,
        ALTER COLUMN txid TYPE xid8 USING txid::text::xid8,
        ALTER COLUMN txid SET DEFAULT pg_current_xact_id(),
        ALTER COLUMN sequenced_lsn TYPE pg_lsn USING sequenced_lsn::pg_lsn`);
    await queryRunner.query(`DROP FUNCTION current_txid()`);
  }
}
