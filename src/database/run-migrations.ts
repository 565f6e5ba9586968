import type { DataSource } from 'typeorm';
import { setTimeout as sleep } from 'node:timers/promises';

// An arbitrary constant shared by every instance: "settlement-oracle migrations".
const MIGRATION_LOCK_KEY = 7_236_418_905;
const LOCK_POLL_MS = 200;
const LOCK_WAIT_LIMIT_MS = 5 * 60_000;

/**
 * Applies pending migrations, then `functions` (each CREATE OR REPLACE, in dependency order),
 * under a PostgreSQL advisory lock, so instances starting together against an empty database
 * take turns instead of racing on CREATE TABLE. The lock is polled (not awaited in one
 * statement) so the pool's query timeout never fires while another instance is migrating.
 *
 * A function's current definition lives beside the code that calls it, listed in src/schema.ts:
 * the database then always has the release's definitions. Migrations create the tables and
 * drop what a function no longer needs (an overload whose signature changed).
 */
export async function runMigrationsExclusively(dataSource: DataSource, functions: readonly string[]): Promise<string[]> {
  return exclusively(dataSource, async () => {
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    await dataSource.transaction(async (manager) => {
      for (const definition of functions) await manager.query(definition);
    });
    return applied.map((migration) => migration.name);
  });
}

/** Reverts the last migration applied, under the same lock. */
export function revertLastMigrationExclusively(dataSource: DataSource): Promise<void> {
  return exclusively(dataSource, () => dataSource.undoLastMigration({ transaction: 'each' }));
}

async function exclusively<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  const lockHolder = dataSource.createQueryRunner();
  await lockHolder.connect();
  try {
    const deadline = Date.now() + LOCK_WAIT_LIMIT_MS;
    for (;;) {
      const [{ locked }] = await lockHolder.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY]);
      if (locked) break;
      if (Date.now() > deadline) throw new Error('timed out waiting for another instance to finish migrations');
      await sleep(LOCK_POLL_MS);
    }
    try {
      return await work();
    } finally {
      await lockHolder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lockHolder.release();
  }
}
