import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { startupNotice } from '../config/startup-error';
import { connectWithRetries } from './connect-with-retries';
import { dataSourceOptions, migrationOptions, sessionDefaults } from './data-source-options';
import { applySchema, type DatabaseSchema } from './run-migrations';
import type { SchemaState } from './schema-state';

/** Where and as whom the schema is applied, and the API's statement timeout its role gets as a default. */
export interface SchemaTarget {
  /** A session connection (DATABASE_DIRECT_URL, or the embedded server): a transaction pooler breaks the migrations' lock. */
  migrationUrl: string;
  /** DATABASE_URL: its role gets the service's timeouts, through a pooler too. */
  appUrl: string;
  runtimeRole: string;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

/** A standby or read-only primary is asked again this often, until a primary answers and the schema is applied. */
export const SCHEMA_RETRY_MS = 2_000;

const IS_READ_ONLY = `SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' AS read_only`;

/** This release's schema (the migrations, the SQL functions, the libraries' schemas, the role's grants and timeouts), applied at start, or once a primary answers. */
export class SchemaMigrations {
  private readonly logger = new Logger('Database');
  private retrying: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: SchemaTarget,
    private readonly schema: DatabaseSchema,
    private readonly state: SchemaState,
  ) {}

  // A read-only database never stops the start: with its schema current the instance serves reads (writes: 5030);
  // with migrations pending it serves nothing (5030, readiness 503). Either way it migrates once a primary answers.
  async applyAtStart(): Promise<void> {
    const url = this.target.migrationUrl;
    const dataSource = await connectWithRetries(url, () => new DataSource(migrationOptions(url, this.target.connectTimeoutMs)).initialize(), startupNotice);
    try {
      if (!(await isReadOnly(dataSource))) return await this.apply(dataSource);
      if (await dataSource.showMigrations()) {
        this.state.markPending();
        this.logger.warn('the database is read-only and this release has migrations to apply: nothing is served until a primary answers');
      } else {
        this.logger.warn('the database is read-only (a standby?): serving reads without migrating; writes answer 5030 until a primary answers');
      }
    } finally {
      await dataSource.destroy();
    }
    this.retrying = setInterval(() => void this.retry(), SCHEMA_RETRY_MS).unref();
  }

  stop(): void {
    clearInterval(this.retrying);
  }

  private async retry(): Promise<void> {
    const url = this.target.migrationUrl;
    const dataSource = new DataSource(migrationOptions(url, this.target.connectTimeoutMs));
    try {
      await dataSource.initialize();
      if (await isReadOnly(dataSource)) return;
      this.stop();
      await this.apply(dataSource);
      this.state.markCurrent();
    } catch (error) {
      this.logger.debug(`the schema is not applied yet: ${(error as Error).message}`);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    }
  }

  private async apply(dataSource: DataSource): Promise<void> {
    const { migrationUrl, connectTimeoutMs, runtimeRole } = this.target;
    const { applied, granted } = await applySchema(dataSource, this.schema, { url: migrationUrl, connectTimeoutMs, runtimeRole });
    if (applied.length > 0) this.logger.log(`applied migrations: ${applied.join(', ')}`);
    if (granted) this.logger.log(`granted the role ${runtimeRole} what the service needs (docs/operations.md)`);
    await this.setSessionDefaults();
  }

  /** Set by the role itself through DATABASE_URL (a pooler too), before its pool is used. */
  private async setSessionDefaults(): Promise<void> {
    const { appUrl, connectTimeoutMs, statementTimeoutMs } = this.target;
    const dataSource = await new DataSource(dataSourceOptions({ url: appUrl, poolSize: 1, connectTimeoutMs, statementTimeoutMs })).initialize();
    try {
      await dataSource.query(sessionDefaults(statementTimeoutMs));
    } finally {
      await dataSource.destroy();
    }
  }
}

async function isReadOnly(dataSource: DataSource): Promise<boolean> {
  const [{ read_only }] = await dataSource.query<{ read_only: boolean }[]>(IS_READ_ONLY);
  return read_only;
}
