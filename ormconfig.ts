// The TypeORM CLI's data source (npx typeorm-ts-node-commonjs migration:show -d ormconfig.ts): the app's migrations.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { validateEnvironment } from './src/config/environment';
import { dataSourceOptions } from './src/database/data-source-options';

const environment = validateEnvironment(process.env);
if (!environment.DATABASE_URL) {
  throw new Error('DATABASE_URL must be set to run TypeORM CLI commands');
}

export default new DataSource(
  dataSourceOptions({
    url: environment.DATABASE_URL,
    poolSize: 2,
    connectTimeoutMs: environment.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: 600_000,
  }),
);
