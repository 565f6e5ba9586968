import { ADVISORY_LOCKS } from '../database/advisory-locks';

// A write holds its credential until it commits (docs/architecture.md): hold_<kind> shares the lock, revoking_<kind> takes it exclusively.
// VOLATILE, so the check sees a revocation committed while the lock waited. An id past 2^31 - 1 shares a lock with a smaller one.
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

/** Partner keys (held by filings) and reviewer accounts (held by admin writes). */
export const CREDENTIAL_HOLD_FUNCTIONS = [
  ...credentialHold('partner_key', 'api_keys', ADVISORY_LOCKS.partnerKeyClass),
  ...credentialHold('reviewer', 'reviewers', ADVISORY_LOCKS.reviewerClass),
];
