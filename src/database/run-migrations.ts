import type { DataSource } from 'typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADVISORY_LOCKS } from './advisory-locks';
import { grantRuntimeRole } from './runtime-grants';

/** A schema a library installs and upgrades itself (pg-boss's), after the migrations, as their role. */
export interface LibrarySchema {
  schema: string;
  install(url: string, connectTimeoutMs: number): Promise<void>;
}

/** What the schema holds beyond the migrations: the SQL functions' current definitions, the libraries' schemas (src/schema.ts). */
export interface DatabaseSchema {
  functions: readonly string[];
  libraries: readonly LibrarySchema[];
}

const LOCK_POLL_MS = 200;
const LOCK_WAIT_LIMIT_MS = 5 * 60_000;

/** Then `functions` (src/schema.ts), so the database has this release's definitions; the advisory lock is polled so no query timeout fires while another instance migrates. */
export async function runMigrationsExclusively(dataSource: DataSource, functions: readonly string[]): Promise<string[]> {
  return exclusively(dataSource, async () => {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    await dataSource.transaction(async (manager) => {
      for (const definition of functions) await manager.query(definition);
    });
    return applied.map((migration) => migration.name);
  });
}

/** What a start and `migrate.js run` apply: the migrations and functions, the libraries' schemas, then `runtimeRole`'s grants (whether any were given). */
export async function applySchema(
  dataSource: DataSource,
  schema: DatabaseSchema,
  connection: { url: string; connectTimeoutMs: number; runtimeRole?: string },
): Promise<{ applied: string[]; granted: boolean }> {
  const applied = await runMigrationsExclusively(dataSource, schema.functions);
  for (const library of schema.libraries) await library.install(connection.url, connection.connectTimeoutMs);
  const schemas = schema.libraries.map((library) => library.schema);
  const granted = connection.runtimeRole !== undefined && (await grantRuntimeRole(dataSource, connection.runtimeRole, schemas));
  return { applied, granted };
}

export function revertLastMigrationExclusively(dataSource: DataSource): Promise<void> {
  return exclusively(dataSource, () => dataSource.undoLastMigration({ transaction: 'each' }));
}

async function exclusively<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  const lockHolder = dataSource.createQueryRunner();
  await lockHolder.connect();
  try {
    const deadline = Date.now() + LOCK_WAIT_LIMIT_MS;
    for (;;) {
      const [{ locked }] = await lockHolder.query('SELECT pg_try_advisory_lock($1) AS locked', [ADVISORY_LOCKS.migrations]);
      if (locked) break;
      if (Date.now() > deadline) throw new Error('timed out waiting for another instance to finish migrations');
      await sleep(LOCK_POLL_MS);
    }
    try {
      return await work();
    } finally {
      await lockHolder.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.migrations]);
    }
  } finally {
    await lockHolder.release();
  }
}
