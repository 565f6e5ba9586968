import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A filing holds its partner key until it commits, so none commits after the key's revocation has
 * answered ('key_revoked': 4011); the seven-argument file_dispute stays for a rolling deploy.
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
