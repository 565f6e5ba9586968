import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { createTestDatabase } from './test-app';

/** A database of its own with the schema from before `migration`, for rows written under it; `up()` then runs the migrations. */
export interface MigrationDatabase {
  url: string;
  query<T = Record<string, unknown>>(sql: string, parameters?: unknown[]): Promise<T[]>;
  /** Back to the schema before `migration` (the migrations after it first). */
  down(): Promise<void>;
  up(): Promise<void>;
  drop(): Promise<void>;
}

export async function databaseBefore(migration: string): Promise<MigrationDatabase> {
  const database = await createTestDatabase();
  const dataSource = new DataSource(dataSourceOptions({ url: database.url, poolSize: 2, connectTimeoutMs: 5000, statementTimeoutMs: 5000 }));
  await dataSource.initialize();
  const query = <T = Record<string, unknown>>(sql: string, parameters?: unknown[]): Promise<T[]> => dataSource.query(sql, parameters);
  const applied = async () => (await query('SELECT 1 FROM schema_migrations WHERE name = $1', [migration])).length > 0;
  const fixture: MigrationDatabase = {
    url: database.url,
    query,
    async down() {
      while (await applied()) await dataSource.undoLastMigration();
    },
    async up() {
      await dataSource.runMigrations();
    },
    async drop() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await database.drop();
    },
  };
  await fixture.up();
  await fixture.down();
  return fixture;
}
