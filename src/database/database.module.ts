import { type DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../config/configuration';
import { startupNotice } from '../config/startup-error';
import { connectWithRetries } from './connect-with-retries';
import { DatabaseActivity } from './database-activity';
import { migrationOptions, sessionDefaults } from './data-source-options';
import { DATABASE_POOL, openPool } from './database-pool';
import { EmbeddedDatabase } from './embedded-database';
import { ReadReplicas } from './read-replicas';
import { applySchema, type DatabaseSchema } from './run-migrations';
import { roleOf } from './runtime-grants';
import { Sql } from './sql';

export const DATABASE_LOCATION = Symbol('DATABASE_LOCATION');

/** Where the database is: the configured DATABASE_URL, or the embedded server we started. */
export interface DatabaseLocation {
  url: string;
  embedded: EmbeddedDatabase | null;
}

const logger = new Logger('Database');

/** Set by the role itself through DATABASE_URL (a pooler too), before the pool opens. */
async function setSessionDefaults(url: string, connectTimeoutMs: number, statementTimeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, application_name: 'settlement-oracle' });
  await client.connect();
  try {
    await client.query(sessionDefaults(statementTimeoutMs));
  } finally {
    await client.end();
  }
}

// On a session connection of their own (DATABASE_DIRECT_URL when set: a transaction-mode pooler breaks the lock
// instances take turns with), with a migration's statement timeout rather than the API's.
async function migrate(url: string, connectTimeoutMs: number, runtimeRole: string, schema: DatabaseSchema): Promise<void> {
  const dataSource = await connectWithRetries(url, () => new DataSource(migrationOptions(url, connectTimeoutMs)).initialize(), startupNotice);
  try {
    const { applied, granted } = await applySchema(dataSource, schema, { url, connectTimeoutMs, runtimeRole });
    if (applied.length > 0) logger.log(`applied migrations: ${applied.join(', ')}`);
    if (granted) logger.log(`granted the role ${runtimeRole} what the service needs (docs/operations.md)`);
  } finally {
    await dataSource.destroy();
  }
}

@Module({
  providers: [
    {
      provide: DATABASE_LOCATION,
      inject: [databaseConfig.KEY],
      useFactory: async (config: DatabaseConfig): Promise<DatabaseLocation> => {
        const url = config.url;
        if (url) return { url, embedded: null };
        const dataDir = config.embeddedDataDir;
        const embedded = await EmbeddedDatabase.start({
          dataDir,
          onInfo: (message) => logger.log(message),
          onDebug: (line) => logger.debug(line),
        });
        logger.log(`embedded PostgreSQL started with its data in ${embedded.clusterDir}`);
        // Nothing restarts it (and it may have died for a reason a restart would repeat): every
        // request would get 5030 until someone looked. The service stops instead, as on SIGTERM,
        // with exit code 1 and an error line saying why, for whoever runs it to start it again.
        embedded.onUnexpectedExit((how) => {
          const message = `the embedded PostgreSQL stopped by itself (${how}): stopping the service; start it again`;
          process.exitCode = 1;
          // Serving: the shutdown main.ts installs once it listens. Still starting: nothing to
          // drain, and Nest holds log lines back until the app is built, so the line goes to stderr.
          if (process.listenerCount('SIGTERM') > 0) {
            logger.error(message);
            process.kill(process.pid, 'SIGTERM');
          } else {
            startupNotice(message);
            process.exit();
          }
        });
        return { url: embedded.url, embedded };
      },
    },
  ],
  exports: [DATABASE_LOCATION],
})
class DatabaseLocationModule {}

const DATABASE_SCHEMA = Symbol('DATABASE_SCHEMA');

/** Migrated before its pool opens; DatabaseActivity tells a silent database from a busy instance. */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  static forRoot(schema: DatabaseSchema): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [DatabaseLocationModule],
      providers: [
        { provide: DATABASE_SCHEMA, useValue: schema },
        {
          provide: DATABASE_POOL,
          inject: [databaseConfig.KEY, DATABASE_LOCATION, DATABASE_SCHEMA],
          useFactory: async (config: DatabaseConfig, location: DatabaseLocation, schema: DatabaseSchema) => {
            const connectTimeoutMs = config.connectTimeoutMs;
            const statementTimeoutMs = config.statementTimeoutMs;
            const migrationUrl = location.embedded ? location.url : (config.directUrl ?? location.url);
            await migrate(migrationUrl, connectTimeoutMs, roleOf(location.url), schema);
            await setSessionDefaults(location.url, connectTimeoutMs, statementTimeoutMs);
            const settings = { url: location.url, poolSize: config.poolSize, connectTimeoutMs, statementTimeoutMs };
            return connectWithRetries(location.url, () => openPool(settings), startupNotice);
          },
        },
        Sql,
        ReadReplicas,
        {
          provide: DatabaseActivity,
          inject: [databaseConfig.KEY],
          useFactory: (config: DatabaseConfig) => new DatabaseActivity(config.connectTimeoutMs),
        },
      ],
      exports: [Sql, DatabaseActivity, ReadReplicas, DatabaseLocationModule],
    };
  }

  constructor(
    @Inject(DATABASE_LOCATION) private readonly location: DatabaseLocation,
    @Inject(DATABASE_POOL) private readonly pool: pg.Pool,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    // Our pool closes before the server it points at goes away.
    if (!this.pool.ending) await this.pool.end();
    await this.location.embedded?.stop();
  }
}
