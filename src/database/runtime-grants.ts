import type { DataSource } from 'typeorm';

/** The least DATABASE_URL's role needs when another role owns the schema: no UPDATE, DELETE or TRUNCATE of the audit trail. docs/operations.md lists the same. */
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
  webhooks: ['SELECT', 'INSERT', 'UPDATE'],
  webhook_deliveries: ['SELECT', 'INSERT', 'UPDATE', 'DELETE'],
  webhook_fanout_head: ['SELECT', 'UPDATE'],
};

/** In a library's schema (pg-boss's): rows and functions, never DDL (the migrations' role installs and upgrades it). */
export const LIBRARY_SCHEMA_GRANTS: readonly string[] = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];

/** The role in a postgres:// URL (the one its sessions log in as). */
export const roleOf = (url: string): string => decodeURIComponent(new URL(url).username) || process.env.PGUSER || '';

/** Also the tables' id sequences; nothing when `role` is the one migrating. */
export async function grantRuntimeRole(dataSource: DataSource, role: string, librarySchemas: readonly string[]): Promise<boolean> {
  const [{ current }] = await dataSource.query<{ current: string }[]>('SELECT current_user AS current');
  if (!role || role === current) return false;
  const quoted = `"${role.replace(/"/g, '""')}"`;
  await dataSource.transaction(async (manager) => {
    for (const [table, privileges] of Object.entries(RUNTIME_GRANTS)) await manager.query(`GRANT ${privileges.join(', ')} ON TABLE ${table} TO ${quoted}`);
    await manager.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${quoted}`);
    for (const schema of librarySchemas) {
      await manager.query(`GRANT USAGE ON SCHEMA ${schema} TO ${quoted}`);
      await manager.query(`GRANT ${LIBRARY_SCHEMA_GRANTS.join(', ')} ON ALL TABLES IN SCHEMA ${schema} TO ${quoted}`);
      await manager.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${schema} TO ${quoted}`);
      await manager.query(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${schema} TO ${quoted}`);
    }
  });
  return true;
}
