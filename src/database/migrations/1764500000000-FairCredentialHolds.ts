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
 * Lock keys: (7101, key id) for partner keys, (7102, account id) for reviewer accounts; an id
 * past 2^31 - 1 shares its lock with a smaller one, which only makes one wait for the other.
 *
 * The guarantee holds once every instance runs this release: an instance of an earlier one
 * (which files through the seven-argument file_dispute, holding nothing) does not wait.
 */
export class FairCredentialHolds1764500000000 implements MigrationInterface {
  name = 'FairCredentialHolds1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of [...credentialHold('partner_key', 'api_keys', 7101), ...credentialHold('reviewer', 'reviewers', 7102)]) {
      await queryRunner.query(sql);
    }
    await queryRunner.query(fileDisputeHolding('held := hold_partner_key(p_key_id);'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      fileDisputeHolding('PERFORM 1 FROM api_keys k WHERE k.id = p_key_id AND k.revoked_at IS NULL FOR SHARE;\n        held := FOUND;'),
    );
    await queryRunner.query('DROP FUNCTION hold_partner_key(bigint), revoking_partner_key(bigint), hold_reviewer(bigint), revoking_reviewer(bigint)');
  }
}

/**
 * hold_<kind>(id): the credential `id` of `table` held until the transaction ends (a shared
 * advisory lock of class `lockClass`), and whether it is still unrevoked; revoking_<kind>(id):
 * the same lock, exclusive, for its revocation.
 *
 * VOLATILE (as functions are by default, said here because it matters): each statement of the
 * function takes a snapshot of its own, so the check after the lock sees a revocation that
 * committed while the lock waited. A STABLE function would check with the snapshot of the
 * statement that called it.
 */
function credentialHold(kind: string, table: string, lockClass: number): string[] {
  const lock = `${lockClass}, (p_id % 2147483647)::int`;
  return [
    `CREATE FUNCTION hold_${kind}(p_id bigint) RETURNS boolean VOLATILE LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(${lock});
        RETURN EXISTS (SELECT 1 FROM ${table} c WHERE c.id = p_id AND c.revoked_at IS NULL);
      END $$`,
    `CREATE FUNCTION revoking_${kind}(p_id bigint) RETURNS void VOLATILE LANGUAGE sql AS $$ SELECT pg_advisory_xact_lock(${lock}) $$`,
  ];
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
