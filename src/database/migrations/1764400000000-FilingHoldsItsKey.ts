import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A filing holds the partner key it was authenticated with until it commits: file_dispute with
 * the key's id checks that the key is still valid, locking its row FOR SHARE. A revocation locks
 * that row FOR UPDATE, so it waits for the filings in progress with the key, and a filing that
 * waited for a revocation finds the key revoked ('key_revoked': 4011). Once a revocation has
 * answered, no filing with the key commits after it. (Before, a filing authenticated before the
 * revocation could commit after it: the guard's lookup and the write were two steps.)
 *
 * The rule itself stays in file_dispute of seven arguments (migration FileDisputeFunction),
 * which instances of the previous release still call during a rolling deploy.
 */
export class FilingHoldsItsKey1764400000000 implements MigrationInterface {
  name = 'FilingHoldsItsKey1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION file_dispute(
        p_market_id bigint, p_partner_source text, p_submitter_id text, p_submitter_name text,
        p_submitter_selection text, p_reason_text text, p_submitted_at timestamptz, p_key_id bigint
      ) RETURNS TABLE (outcome text, dispute_id bigint, source text, slug text, txid text)
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM api_keys k WHERE k.id = p_key_id AND k.revoked_at IS NULL FOR SHARE;
        IF NOT FOUND THEN
          RETURN QUERY SELECT 'key_revoked', NULL::bigint, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        RETURN QUERY SELECT * FROM file_dispute(
          p_market_id, p_partner_source, p_submitter_id, p_submitter_name, p_submitter_selection, p_reason_text, p_submitted_at);
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION file_dispute(bigint, text, text, text, text, text, timestamptz, bigint)`);
  }
}
