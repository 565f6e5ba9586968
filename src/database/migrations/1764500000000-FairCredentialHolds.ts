import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A write made with a credential (a filing with its partner key, an admin write with its
 * account) holds that credential until it commits, and a revocation waits for those holds
 * (migration FilingHoldsItsKey). The holds were the credential's row locked FOR SHARE, which
 * PostgreSQL grants at once beside other sharers even while a revocation's FOR UPDATE waits: a
 * key in constant use could keep its revocation waiting until lock_timeout (5030), again and
 * again, and each hold blocked the key's last_used_at update.
 *
 * The holds are now transaction-level advisory locks, one per credential: shared by the writes
 * made with it, taken exclusively by its revocation. PostgreSQL's lock manager queues a shared
 * request behind an exclusive one that waits, so a revocation waits only for the writes already
 * in progress. Whether the credential is still valid is read after the hold is granted, by a
 * statement of its own: it sees a revocation that committed while the hold waited.
 *
 * The guarantee holds once every instance runs this release: an instance of an earlier one
 * (which files through the seven-argument file_dispute, holding nothing) does not wait.
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
