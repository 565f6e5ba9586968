import { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Generated from the AuditRecord entity (npm run migration:generate): an index for each filter of
 * GET /admin/audit, newest first, so a page costs its own rows however rare the match.
 */
export class AuditTrailFilters1796411316985 implements MigrationInterface {
    name = 'AuditTrailFilters1796411316985'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE INDEX "ix_audit_events_at" ON "audit_events"  ("at", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_audit_events_target" ON "audit_events"  ("target", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_audit_events_action" ON "audit_events"  ("action", "id") `);
        await queryRunner.query(`CREATE INDEX "ix_audit_events_actor" ON "audit_events"  ("actor", "id") `);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`DROP INDEX "public"."ix_audit_events_actor"`);
        await queryRunner.query(`DROP INDEX "public"."ix_audit_events_action"`);
        await queryRunner.query(`DROP INDEX "public"."ix_audit_events_target"`);
        await queryRunner.query(`DROP INDEX "public"."ix_audit_events_at"`);
    }

}
