import { type DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown, type Provider } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../config/configuration';
import { startupNotice } from '../config/startup-error';
import { CONNECTION_REFUSALS } from './connect-with-retries';
import { DatabaseActivity, DatabaseActivitySubscriber } from './database-activity';
import { isDatabaseUnavailable } from './database-errors';
import { dataSourceOptions } from './data-source-options';
import { EmbeddedDatabase } from './embedded-database';
import { ReadReplicas } from './read-replicas';
import type { DatabaseSchema } from './run-migrations';
import { roleOf } from './runtime-grants';
import { SchemaMigrations } from './schema-migrations';
import { SchemaGate, SchemaState } from './schema-state';
import { Sql } from './sql';

export const DATABASE_LOCATION = Symbol('DATABASE_LOCATION');

/** Where the database is: the configured DATABASE_URL, or the embedded server we started. */
export interface DatabaseLocation {
  url: string;
  embedded: EmbeddedDatabase | null;
}

const logger = new Logger('Database');

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

/** The retries of a first connection: a database not up yet is waited for; a refusal (credentials, a pooler's parameters) is not. */
function isWorthRetrying(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isDatabaseUnavailable(error) && !(typeof code === 'string' && CONNECTION_REFUSALS.test(code));
}

/**
 * One DataSource (TypeOrmModule), opened once this release's schema is applied (SchemaMigrations): every module
 * registers its entities with TypeOrmModule.forFeature. DatabaseActivity tells a silent database from a busy instance.
 */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  static forRoot(schema: DatabaseSchema): DynamicModule {
    const schemaProviders: Provider[] = [
      { provide: SchemaState, useValue: new SchemaState() },
      {
        provide: SchemaMigrations,
        inject: [databaseConfig.KEY, DATABASE_LOCATION, SchemaState],
        useFactory: (config: DatabaseConfig, location: DatabaseLocation, state: SchemaState) =>
          new SchemaMigrations(
            {
              migrationUrl: location.embedded ? location.url : (config.directUrl ?? location.url),
              appUrl: location.url,
              runtimeRole: roleOf(location.url),
              connectTimeoutMs: config.connectTimeoutMs,
              statementTimeoutMs: config.statementTimeoutMs,
            },
            schema,
            state,
          ),
      },
    ];
    return {
      module: DatabaseModule,
      imports: [
        DatabaseLocationModule,
        TypeOrmModule.forRootAsync({
          imports: [DatabaseLocationModule],
          extraProviders: schemaProviders,
          inject: [databaseConfig.KEY, DATABASE_LOCATION, SchemaMigrations],
          useFactory: async (config: DatabaseConfig, location: DatabaseLocation, migrations: SchemaMigrations) => {
            await migrations.applyAtStart();
            const settings = { url: location.url, poolSize: config.poolSize, connectTimeoutMs: config.connectTimeoutMs, statementTimeoutMs: config.statementTimeoutMs };
            return { ...dataSourceOptions(settings), autoLoadEntities: true, retryAttempts: 10, retryDelay: 2000, toRetry: isWorthRetrying };
          },
        }),
      ],
      providers: [
        ...schemaProviders,
        Sql,
        ReadReplicas,
        {
          provide: DatabaseActivity,
          inject: [databaseConfig.KEY],
          useFactory: (config: DatabaseConfig) => new DatabaseActivity(config.connectTimeoutMs),
        },
        DatabaseActivitySubscriber,
        SchemaGate,
      ],
      exports: [Sql, DatabaseActivity, ReadReplicas, SchemaState, DatabaseLocationModule],
    };
  }

  constructor(
    @Inject(DATABASE_LOCATION) private readonly location: DatabaseLocation,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly migrations: SchemaMigrations,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    this.migrations.stop();
    // The pool closes before the server it points at goes away.
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.location.embedded?.stop();
  }
}
