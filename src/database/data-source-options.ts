import type { DataSourceOptions } from 'typeorm';
import { InitialSchema1763700000000 } from './migrations/1763700000000-InitialSchema';
import { ReviewBackOffice1763800000000 } from './migrations/1763800000000-ReviewBackOffice';
import { PublicMarketChanges1763900000000 } from './migrations/1763900000000-PublicMarketChanges';
import { FileDisputeFunction1764000000000 } from './migrations/1764000000000-FileDisputeFunction';
import { UniqueReviewerNames1764100000000 } from './migrations/1764100000000-UniqueReviewerNames';
import { DisputeQueueOrder1764200000000 } from './migrations/1764200000000-DisputeQueueOrder';
import { ReviewerNamesIgnoreCase1764300000000 } from './migrations/1764300000000-ReviewerNamesIgnoreCase';
import { FilingHoldsItsKey1764400000000 } from './migrations/1764400000000-FilingHoldsItsKey';
import { FairCredentialHolds1764500000000 } from './migrations/1764500000000-FairCredentialHolds';
import { ConfusableNames1764600000000 } from './migrations/1764600000000-ConfusableNames';
import { AuditTrailRefusesTruncate1764700000000 } from './migrations/1764700000000-AuditTrailRefusesTruncate';
import { ChangeLog1764800000000 } from './migrations/1764800000000-ChangeLog';
import { PartnerKeysNewestFirst1764900000000 } from './migrations/1764900000000-PartnerKeysNewestFirst';
import { ChangeLogReaders1764950000000 } from './migrations/1764950000000-ChangeLogReaders';
import { Webhooks1765000000000 } from './migrations/1765000000000-Webhooks';
import { ReviewerNamesAsWritten1765100000000 } from './migrations/1765100000000-ReviewerNamesAsWritten';
import { ChangeLogPortableTypes1765200000000 } from './migrations/1765200000000-ChangeLogPortableTypes';
import { FilingInTypeScript1765300000000 } from './migrations/1765300000000-FilingInTypeScript';
import { AuditTrailFilters1796411316985 } from './migrations/1796411316985-AuditTrailFilters';
import { WebhookLastDelivered1796411404699 } from './migrations/1796411404699-WebhookLastDelivered';
import { ADVISORY_LOCKS } from './advisory-locks';

// An explicit list, not a glob: the same options load under the compiled app, the TypeORM CLI
// and Jest's ESM mode (where __dirname does not exist).
export const MIGRATIONS = [
  InitialSchema1763700000000,
  ReviewBackOffice1763800000000,
  PublicMarketChanges1763900000000,
  FileDisputeFunction1764000000000,
  UniqueReviewerNames1764100000000,
  DisputeQueueOrder1764200000000,
  ReviewerNamesIgnoreCase1764300000000,
  FilingHoldsItsKey1764400000000,
  FairCredentialHolds1764500000000,
  ConfusableNames1764600000000,
  AuditTrailRefusesTruncate1764700000000,
  ChangeLog1764800000000,
  PartnerKeysNewestFirst1764900000000,
  ChangeLogReaders1764950000000,
  Webhooks1765000000000,
  ReviewerNamesAsWritten1765100000000,
  ChangeLogPortableTypes1765200000000,
  FilingInTypeScript1765300000000,
  AuditTrailFilters1796411316985,
  WebhookLastDelivered1796411404699,
];

export interface DatabaseSettings {
  url: string;
  poolSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

// Fails fast when the database is gone (5030). Server timeouts are the role's defaults (sessionDefaults): a pooler
// refuses them as startup parameters, and a SET would be session state on a pooled connection.
function poolExtras(statementTimeoutMs: number): Record<string, unknown> {
  return {
    query_timeout: statementTimeoutMs + 500,
    // A connection to a server that vanished (a failover) is found dead within seconds, not hours.
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
  };
}

/** The DataSource's options (the app's, through TypeOrmModule, and the TypeORM CLI's in ormconfig.ts): its pool, entities and migrations. */
export function dataSourceOptions(settings: DatabaseSettings, entities: DataSourceOptions['entities'] = []): DataSourceOptions {
  return {
    type: 'postgres',
    url: settings.url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    migrationsRun: false,
    logging: false,
    installExtensions: false,
    applicationName: 'settlement-oracle',
    connectTimeoutMS: settings.connectTimeoutMs,
    poolSize: settings.poolSize,
    extra: poolExtras(settings.statementTimeoutMs),
  };
}

/** A read replica's (ReadReplicas): reads only, no schema. */
export function replicaOptions(url: string, poolSize: number, timeoutMs: number): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    synchronize: false,
    logging: false,
    installExtensions: false,
    applicationName: 'settlement-oracle-reads',
    connectTimeoutMS: timeoutMs,
    poolSize,
    extra: poolExtras(timeoutMs - 500),
  };
}

/** How long a transaction may sit idle before the server ends it (a client that went away mid-transaction). */
export const IDLE_IN_TRANSACTION_MS = 30_000;

/** The service's timeouts as its role's defaults in its database, so every session gets them, behind a pooler too. */
export function sessionDefaults(statementTimeoutMs: number): string {
  const settings = { statement_timeout: statementTimeoutMs, lock_timeout: statementTimeoutMs, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS };
  const statements = Object.entries(settings).flatMap(([name, ms]) => [
    `EXECUTE format('ALTER ROLE %I IN DATABASE %I SET ${name} = %L', current_user, current_database(), '${ms}ms');`,
    `SET ${name} = '${ms}ms';`,
  ]);
  return `DO $$ BEGIN PERFORM pg_advisory_xact_lock(${ADVISORY_LOCKS.sessionDefaults}); ${statements.join(' ')} END $$`;
}

/** Migrations take as long as they take (an index on a large table): minutes, not the API's seconds. */
export const MIGRATION_STATEMENT_TIMEOUT_MS = 10 * 60_000;

/** DATABASE_DIRECT_URL, PostgreSQL itself (a pooler would break the migrations' lock): timeouts as startup parameters. */
export function migrationOptions(url: string, connectTimeoutMs: number, entities: DataSourceOptions['entities'] = []): DataSourceOptions {
  const options = dataSourceOptions({ url, poolSize: 2, connectTimeoutMs, statementTimeoutMs: MIGRATION_STATEMENT_TIMEOUT_MS }, entities);
  return { ...options, extra: { ...options.extra, statement_timeout: MIGRATION_STATEMENT_TIMEOUT_MS, lock_timeout: MIGRATION_STATEMENT_TIMEOUT_MS } } as DataSourceOptions;
}
