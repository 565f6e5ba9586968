import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Filing a dispute is a TypeScript transaction of the Disputes module (DisputeFiling), its one-dispute rule the Dispute
 * entity's unique constraint: the PL/pgSQL function file_dispute goes, whatever versions of it a database still holds.
 */
export class FilingInTypeScript1765300000000 implements MigrationInterface {
  name = 'FilingInTypeScript1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      DO $$
      DECLARE version regprocedure;
      BEGIN
        FOR version IN SELECT oid::regprocedure FROM pg_proc WHERE proname = 'file_dispute' AND pronamespace = current_schema()::regnamespace LOOP
          EXECUTE format('DROP FUNCTION %s', version);
        END LOOP;
      END $$`);
  }

  /** The last version, as the previous release applied it. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
  CREATE FUNCTION file_dispute(
    p_market_id bigint, p_partner_source text, p_submitter_id text, p_submitter_name text,
    p_submitter_selection text, p_reason_text text, p_submitted_at timestamptz, p_key_id bigint,
    p_idempotency_key text, p_request_hash text
  ) RETURNS TABLE (outcome text, dispute_id bigint, source text, slug text, replayed boolean)
  LANGUAGE plpgsql AS $$
  DECLARE
    market record;
    remembered record;
    answer text;
    filed_id bigint;
  BEGIN
    IF NOT hold_partner_key(p_key_id) THEN
      RETURN QUERY SELECT 'key_revoked', NULL::bigint, NULL::text, NULL::text, false;
      RETURN;
    END IF;
    IF p_idempotency_key IS NOT NULL THEN
      IF NOT pg_try_advisory_xact_lock(7104, hashtext(p_partner_source || E'\\n' || p_idempotency_key)) THEN
        RETURN QUERY SELECT 'key_in_progress', NULL::bigint, NULL::text, NULL::text, false;
        RETURN;
      END IF;
      SELECT k.request_hash, k.outcome, k.dispute_id INTO remembered FROM idempotency_keys k
      WHERE k.source = p_partner_source AND k.key = p_idempotency_key;
      IF FOUND THEN
        IF remembered.request_hash <> p_request_hash THEN
          RETURN QUERY SELECT 'key_reused', NULL::bigint, NULL::text, NULL::text, false;
        ELSE
          RETURN QUERY SELECT remembered.outcome, remembered.dispute_id, NULL::text, NULL::text, true;
        END IF;
        RETURN;
      END IF;
    END IF;

    SELECT m.id, m.source, m.slug, m.status INTO market FROM markets m WHERE m.id = p_market_id FOR UPDATE;
    IF NOT FOUND THEN
      answer := 'market_not_found';
    ELSIF market.source <> p_partner_source THEN
      answer := 'other_source';
    -- A statement of its own, after the lock: it sees a dispute committed while this waited.
    ELSIF EXISTS (SELECT 1 FROM disputes d WHERE d.market_id = market.id) THEN
      answer := 'already_disputed';
    ELSIF market.status <> 'resolved' THEN
      answer := 'not_resolved';
    ELSE
      -- One dispute per market is the unique constraint's rule: a row it refuses (one written
      -- without this lock) is the same answer as the check above.
      INSERT INTO disputes (market_id, status, submitter_id, submitter_name, submitter_selection, reason_text, submitted_at)
      VALUES (market.id, 'open', p_submitter_id, p_submitter_name, p_submitter_selection, p_reason_text, p_submitted_at)
      ON CONFLICT ON CONSTRAINT uq_disputes_market_id DO NOTHING
      RETURNING id INTO filed_id;
      IF filed_id IS NULL THEN
        answer := 'already_disputed';
      ELSE
        UPDATE markets SET status = 'disputed', updated_at = now() WHERE id = market.id;
        PERFORM append_market_event('dispute.filed', market.id);
        answer := 'filed';
      END IF;
    END IF;
    IF p_idempotency_key IS NOT NULL THEN
      INSERT INTO idempotency_keys (source, key, request_hash, outcome, dispute_id)
      VALUES (p_partner_source, p_idempotency_key, p_request_hash, answer, filed_id);
    END IF;
    RETURN QUERY SELECT answer, filed_id,
      CASE WHEN answer = 'filed' THEN market.source END, CASE WHEN answer = 'filed' THEN market.slug END, false;
  END $$`);
  }
}
