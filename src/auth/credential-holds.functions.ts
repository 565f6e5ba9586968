/**
 * A write made with a credential holds it until it commits (docs/architecture.md): hold_<kind>(id)
 * takes a shared transaction-level advisory lock on credential `id` and answers whether it is
 * still unrevoked; revoking_<kind>(id) takes the same lock exclusively, for its revocation.
 * VOLATILE: the check after the lock takes a snapshot of its own, so it sees a revocation that
 * committed while the lock waited. An id past 2^31 - 1 shares a lock with a smaller one.
 */
function credentialHold(kind: string, table: string, lockClass: number): string[] {
  const lock = `${lockClass}, (p_id % 2147483647)::int`;
  return [
    `CREATE OR REPLACE FUNCTION hold_${kind}(p_id bigint) RETURNS boolean VOLATILE LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(${lock});
        RETURN EXISTS (SELECT 1 FROM ${table} c WHERE c.id = p_id AND c.revoked_at IS NULL);
      END $$`,
    `CREATE OR REPLACE FUNCTION revoking_${kind}(p_id bigint) RETURNS void VOLATILE LANGUAGE sql AS $$ SELECT pg_advisory_xact_lock(${lock}) $$`,
  ];
}

/** Partner keys (lock class 7101: filings) and reviewer accounts (7102: admin writes). */
export const CREDENTIAL_HOLD_FUNCTIONS = [...credentialHold('partner_key', 'api_keys', 7101), ...credentialHold('reviewer', 'reviewers', 7102)];
