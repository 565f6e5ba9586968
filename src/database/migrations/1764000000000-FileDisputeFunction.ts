import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * submit_dispute's rule and writes as one function, so that filing is one round trip to the
 * database (measured: see docs/benchmarks.md). It answers an explicit outcome; the service maps
 * each to its error code and derives nothing from it.
 */
export class FileDisputeFunction1764000000000 implements MigrationInterface {
  name = 'FileDisputeFunction1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION file_dispute(
        p_market_id bigint, p_partner_source text, p_submitter_id text, p_submitter_name text,
        p_submitter_selection text, p_reason_text text, p_submitted_at timestamptz
      ) RETURNS TABLE (outcome text, dispute_id bigint, source text, slug text, txid text)
      LANGUAGE plpgsql AS $$
      -- Contract §2, steps 3 to 6, in their order, on the market locked for the transaction:
      -- market_not_found (4040), other_source (4030), already_disputed (4091), not_resolved
      -- (4090); else the dispute is inserted and the market moves to disputed ('filed').
      DECLARE
        market record;
        filed_id bigint;
      BEGIN
        SELECT m.id, m.source, m.slug, m.status INTO market FROM markets m WHERE m.id = p_market_id FOR UPDATE;
        IF NOT FOUND THEN
          RETURN QUERY SELECT 'market_not_found', NULL::bigint, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        IF market.source <> p_partner_source THEN
          RETURN QUERY SELECT 'other_source', NULL::bigint, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        -- A statement of its own, after the lock: it sees a dispute committed while this waited.
        IF EXISTS (SELECT 1 FROM disputes d WHERE d.market_id = market.id) THEN
          RETURN QUERY SELECT 'already_disputed', NULL::bigint, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        IF market.status <> 'resolved' THEN
          RETURN QUERY SELECT 'not_resolved', NULL::bigint, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        INSERT INTO disputes (market_id, status, submitter_id, submitter_name, submitter_selection, reason_text, submitted_at)
        VALUES (market.id, 'open', p_submitter_id, p_submitter_name, p_submitter_selection, p_reason_text, p_submitted_at)
        RETURNING id INTO filed_id;
        UPDATE markets SET status = 'disputed', updated_at = now() WHERE id = market.id;
        RETURN QUERY SELECT 'filed', filed_id, market.source, market.slug, txid_current()::text;
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION file_dispute(bigint, text, text, text, text, text, timestamptz)`);
  }
}
