import type { DataSource } from 'typeorm';

/**
 * The least the service's runtime role (DATABASE_URL's) needs, table by table: granted after the
 * migrations when another role applies them (DATABASE_DIRECT_URL's, the schema's owner). No
 * UPDATE, DELETE or TRUNCATE of the audit trail, no DDL; docs/operations.md lists the same.
 */
export const RUNTIME_GRANTS: Record<string, readonly string[]> = {
  partners: ['SELECT', 'INSERT'],
  api_keys: ['SELECT', 'INSERT', 'UPDATE'],
  reviewers: ['SELECT', 'INSERT', 'UPDATE'],
  markets: ['SELECT', 'INSERT', 'UPDATE'],
  proofs: ['SELECT', 'INSERT'],
  disputes: ['SELECT', 'INSERT', 'UPDATE'],
  audit_events: ['SELECT', 'INSERT'],
  market_events: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  change_log_head: ['SELECT', 'UPDATE'],
  change_log_readers: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  idempotency_keys: ['SELECT', 'INSERT', 'DELETE'],
};

/** The role in a postgres:// URL (the one its sessions log in as). */
export const roleOf = (url: string): string => decodeURIComponent(new URL(url).username) || process.env.PGUSER || '';

/** Grants `role` what RUNTIME_GRANTS lists (and its tables' id sequences), unless it is the role migrating. */
export async function grantRuntimeRole(dataSource: DataSource, role: string): Promise<boolean> {
  const [{ current }] = await dataSource.query<{ current: string }[]>('SELECT current_user AS current');
  if (!role || role === current) return false;
  const quoted = `"${role.replace(/"/g, '""')}"`;
  await dataSource.transaction(async (manager) => {
    for (const [table, privileges] of Object.entries(RUNTIME_GRANTS)) await manager.query(`GRANT ${privileges.join(', ')} ON TABLE ${table} TO ${quoted}`);
    await manager.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${quoted}`);
  });
  return true;
}
