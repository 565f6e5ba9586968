import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDatabase } from '../../src/database/embedded-database';

/**
 * The end-to-end suites need a PostgreSQL server they may create databases on.
 * TEST_DATABASE_URL names one (CI uses the machine's PostgreSQL 15); without it, a real
 * embedded PostgreSQL is started in a temporary folder, so `npm test` needs no setup.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  const dataDir = await mkdtemp(join(tmpdir(), 'oracle-test-pg-'));
  await chmod(dataDir, 0o755); // the server runs as the "postgres" user when we are root
  const embedded = await EmbeddedDatabase.start({ dataDir });
  process.env.TEST_DATABASE_URL = embedded.url;
  (globalThis as { embeddedTestDatabase?: EmbeddedDatabase }).embeddedTestDatabase = embedded;
}
