import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit trail refuses TRUNCATE as it refuses UPDATE and DELETE (a statement-level trigger). */
export class AuditTrailRefusesTruncate1764700000000 implements MigrationInterface {
  name = 'AuditTrailRefusesTruncate1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TRIGGER tr_audit_events_no_truncate BEFORE TRUNCATE ON audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER tr_audit_events_no_truncate ON audit_events');
  }
}
