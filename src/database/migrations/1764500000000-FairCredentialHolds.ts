import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Credential holds become advisory locks, shared by the writes made with a credential and taken
 * exclusively by its revocation: a FOR SHARE row lock let a key in constant use starve its revocation.
 */
export class FairCredentialHolds1764500000000 implements MigrationInterface {
  name = 'FairCredentialHolds1764500000000';

  // hold_partner_key, revoking_partner_key, hold_reviewer and revoking_reviewer are applied after
  // the migrations from their one definition (auth/credential-holds.functions.ts).
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(fileDisputeHolding('held := hold_partner_key(p_key_id);'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      fileDisputeHolding('PERFORM 1 FROM api_keys k WHERE k.id = p_key_id AND k.revoked_at IS NULL FOR SHARE;\n        held := FOUND;'),
    );
    await queryRunner.query('DROP FUNCTION IF EXISTS hold_partner_key(bigint), revoking_partner_key(bigint), hold_reviewer(bigint), revoking_reviewer(bigint)');
  }
}

/** file_dispute with the filing's key: `hold` (statements that set `held`), then the rule of seven arguments. */
export function fileDisputeHolding(hold: string): string {
  return `
      CREATE OR REPLACE FUNCTION file_dispute(
        p_market_id bigint, p_partner_source text, p_submitter_id text, p_submitter_name text,
        p_submitter_selection text, p_reason_text text, p_submitted_at timestamptz, p_key_id bigint
      ) RETURNS TABLE (outcome text, dispute_id bigint, source text, slug text, txid text)
      LANGUAGE plpgsql AS $$
      DECLARE
        held boolean;
      BEGIN
        ${hold}
        IF NOT held THEN
          RETURN QUERY SELECT 'key_revoked', NULL::bigint, NULL::text, NULL::text, NULL::text;
          RETURN;
        END IF;
        RETURN QUERY SELECT * FROM file_dispute(
          p_market_id, p_partner_source, p_submitter_id, p_submitter_name, p_submitter_selection, p_reason_text, p_submitted_at);
      END $$`;
}
