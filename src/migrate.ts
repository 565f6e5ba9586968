// `node dist/migrate.js run|revert|show` (npm run migration:run ...): the schema's
// migrations from the built app, as the production image has it (no TypeScript, no ts-node).
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { databaseConfig } from './config/configuration';
import { StartupError, startupNotice } from './config/startup-error';
import { migrationOptions } from './database/data-source-options';
import { applySchema, revertLastMigrationExclusively } from './database/run-migrations';
import { roleOf } from './database/runtime-grants';
import { SCHEMA } from './schema';

const USAGE = 'usage: node dist/migrate.js run | revert | show (DATABASE_URL, or DATABASE_DIRECT_URL, names the database)';

async function migrate(command: string | undefined): Promise<string> {
  if (!['run', 'revert', 'show'].includes(command ?? '')) throw new StartupError(USAGE);
  const database = databaseConfig();
  const url = database.directUrl ?? database.url;
  if (!url) throw new StartupError('DATABASE_URL is not set: migrations run on a database you name (the zero-setup mode migrates at start)');
  const dataSource = await new DataSource(migrationOptions(url, database.connectTimeoutMs)).initialize();
  try {
    if (command === 'run') {
      const runtimeRole = database.url ? roleOf(database.url) : undefined;
      const { applied, granted } = await applySchema(dataSource, SCHEMA, { url, connectTimeoutMs: database.connectTimeoutMs, runtimeRole });
      return [
        applied.length > 0 ? `applied: ${applied.join(', ')}` : 'nothing to apply: the schema is up to date',
        ...(granted ? [`granted ${runtimeRole} what the service needs`] : []),
      ].join('\n');
    }
    if (command === 'revert') {
      const [last] = await dataSource.query<{ name: string }[]>('SELECT name FROM schema_migrations ORDER BY id DESC LIMIT 1');
      if (!last) return 'nothing to revert: no migration is applied';
      await revertLastMigrationExclusively(dataSource);
      return `reverted: ${last.name}`;
    }
    const pending = await dataSource.showMigrations();
    const applied = await dataSource.query<{ name: string }[]>('SELECT name FROM schema_migrations ORDER BY id');
    return [...applied.map(({ name }) => `applied  ${name}`), pending ? 'and migrations are pending: run `migrate.js run`' : 'none pending'].join('\n');
  } finally {
    await dataSource.destroy();
  }
}

migrate(process.argv[2]).then(
  (report) => process.stdout.write(`${report}\n`),
  (error: unknown) => {
    startupNotice(error instanceof StartupError ? error.message : `migrations failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
