// The TypeORM CLI's data source, the app's own options and entities (npm run schema:log, migration:generate, migration:show).
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { validateEnvironment } from './src/config/environment';
import { dataSourceOptions } from './src/database/data-source-options';
import { ENTITIES } from './src/entities';

const environment = validateEnvironment(process.env);
const url = environment.DATABASE_DIRECT_URL ?? environment.DATABASE_URL;
if (!url) {
  throw new Error('DATABASE_URL (or DATABASE_DIRECT_URL) must be set to run TypeORM CLI commands');
}

export default new DataSource(
  dataSourceOptions({ url, poolSize: 2, connectTimeoutMs: environment.DB_CONNECT_TIMEOUT_MS, statementTimeoutMs: 600_000 }, ENTITIES),
);
