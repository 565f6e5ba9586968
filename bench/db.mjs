// bench/db.mjs: the benchmark's database.
//
// provisionDatabase() gives the run a fresh, empty database of its own:
//   - default: an embedded PostgreSQL (the service's own dist/database/embedded-database.js)
//     with its cluster under a mkdtemp folder in os.tmpdir(), on a free port;
//   - BENCH_DATABASE_URL=postgres://user:pass@host:port/anydb: a server you run; the bench
//     creates `oracle_bench_<hex>` there and drops that database (and nothing else) at the end.
// applyMigrations() applies the service's real migrations (dist/database/data-source-options.js
// and run-migrations.js, exactly what `node dist/main.js` runs at start).
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { postgresCpuSeconds, postmasterOf } from './proc.mjs';

const require = createRequire(import.meta.url);
let DIST = process.env.BENCH_DIST || fileURLToPath(new URL('../dist/', import.meta.url));

/** Where the compiled service is read from: dist/, or the run's snapshot of it (run.mjs). */
export function distDir() {
  return DIST;
}
export function useDist(dir) {
  DIST = dir;
}

/** Loads a compiled module of the service (CommonJS) from dist/ (or the snapshot). */
export function requireDist(path) {
  try {
    return require(join(DIST, path));
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(join(DIST, path))) {
      throw new Error(`${join(DIST, path)} is missing: run \`npm run build\` first (npm run bench does)`);
    }
    throw error;
  }
}

/** postgres URL with another database name (user, password, host, port and parameters kept). */
export function withDatabase(url, database) {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** Host and port only, for printing (never the password). */
export function describeUrl(url) {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

/** fn(client) on one connection of its own (for statements that share a session, e.g. setseed). */
export async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export const query = (url, text, values) => withClient(url, (client) => client.query(text, values));

/**
 * A fresh database for this run. Returns { url, serverUrl, database, kind, version, postmaster,
 * tmpDir, cleanup, cpuSeconds }.
 * cleanup() is idempotent and never throws; it drops only the database created here and stops
 * only the embedded server started here.
 */
export async function provisionDatabase({ log = () => {} } = {}) {
  const database = `oracle_bench_${randomBytes(6).toString('hex')}`;
  const tmpDir = await mkdtemp(join(tmpdir(), 'oracle-bench-'));
  // When running as root the embedded server runs as `postgres`, which must enter this folder.
  await chmod(tmpDir, 0o755);

  let embedded = null;
  let serverUrl = process.env.BENCH_DATABASE_URL?.trim() || '';
  let created = false;
  let cleaned = false;

  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    if (created) {
      try {
        // WITH (FORCE) (PostgreSQL 13+) ends stray sessions of *this* database only.
        await query(serverUrl, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
        log(`dropped database ${database}`);
      } catch (error) {
        log(`could not drop database ${database}: ${error.message}`);
      }
    }
    if (embedded) {
      try {
        await embedded.stop();
        log('embedded PostgreSQL stopped');
      } catch (error) {
        log(`could not stop the embedded PostgreSQL: ${error.message}`);
      }
    }
    await rm(tmpDir, { recursive: true, force: true }).catch(() => {});
  };

  try {
    if (serverUrl) {
      if (!/^postgres(ql)?:\/\//.test(serverUrl)) throw new Error('BENCH_DATABASE_URL must be a postgres:// URL');
      log(`using the PostgreSQL server at ${describeUrl(serverUrl)} (BENCH_DATABASE_URL)`);
    } else {
      const { EmbeddedDatabase } = requireDist('database/embedded-database.js');
      const started = Date.now();
      embedded = await EmbeddedDatabase.start({ dataDir: join(tmpDir, 'pg') });
      serverUrl = embedded.url;
      log(`embedded PostgreSQL started in ${Date.now() - started} ms (${describeUrl(serverUrl)}, data in ${tmpDir}/pg)`);
    }
    await query(serverUrl, `CREATE DATABASE "${database}"`);
    created = true;
  } catch (error) {
    await cleanup();
    throw error;
  }

  const url = withDatabase(serverUrl, database);
  // The postmaster is the parent of this session's backend, read while the session (and so the
  // backend process) is still there. It gives the whole server's CPU (every backend, whoever it
  // serves), when it runs on this host.
  const { version, postmaster } = await withClient(url, async (client) => {
    const { rows: [row] } = await client.query('SELECT current_setting($1) AS version, pg_backend_pid() AS backend', ['server_version']);
    return { version: row.version, postmaster: postmasterOf(row.backend) };
  });
  const cpuSeconds = () => (postmaster ? postgresCpuSeconds(postmaster) : null);
  return { url, serverUrl, database, kind: embedded ? 'embedded' : 'external', version, postmaster, tmpDir, cleanup, cpuSeconds };
}

/** Applies the service's migrations to `url`, as the service does at start. Returns their names. */
export async function applyMigrations(url) {
  require('reflect-metadata');
  const { DataSource } = require('typeorm');
  const { dataSourceOptions } = requireDist('database/data-source-options.js');
  const { runMigrationsExclusively } = requireDist('database/run-migrations.js');
  const { SCHEMA } = requireDist('schema.js');
  const dataSource = new DataSource({
    ...dataSourceOptions({ url, poolSize: 2, connectTimeoutMs: 5000, statementTimeoutMs: 600_000 }),
  });
  await dataSource.initialize();
  try {
    return await runMigrationsExclusively(dataSource, SCHEMA.functions);
  } finally {
    await dataSource.destroy();
  }
}
