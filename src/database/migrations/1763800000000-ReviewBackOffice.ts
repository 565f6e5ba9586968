import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Reviewer accounts (admin credentials) and the append-only audit trail of admin writes. */
export class ReviewBackOffice1763800000000 implements MigrationInterface {
  name = 'ReviewBackOffice1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE reviewers (
        id bigserial PRIMARY KEY,
        name text NOT NULL,
        role text NOT NULL,
        key_hash text NOT NULL,
        prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        CONSTRAINT uq_reviewers_key_hash UNIQUE (key_hash),
        CONSTRAINT ck_reviewers_role CHECK (role IN ('admin', 'reviewer')),
        CONSTRAINT ck_reviewers_key_hash_sha256 CHECK (key_hash ~ '^[0-9a-f]{64}$')
      )`);
    await queryRunner.query(`
      CREATE TABLE audit_events (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        actor text NOT NULL,
        action text NOT NULL,
        target text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}'::jsonb
      )`);
    // Append-only: the trail cannot be edited or trimmed through the application's role.
    await queryRunner.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER tr_audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE audit_events`);
    await queryRunner.query(`DROP FUNCTION audit_events_append_only()`);
    await queryRunner.query(`DROP TABLE reviewers`);
  }
}
