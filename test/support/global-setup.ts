import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDatabase } from '../../src/database/embedded-database';
import { dropDatabasesOfDeadRuns, removeFoldersOfDeadRuns, TEST_FOLDER_PREFIX } from './leftovers';

/**
 * The end-to-end suites need a PostgreSQL server they may create databases on.
 * TEST_DATABASE_URL names one (CI uses the machine's PostgreSQL 15); without it, a real
 * embedded PostgreSQL is started in a temporary folder, so `npm test` needs no setup.
 * Whatever an earlier run left behind (it was killed) is removed first.
 */
export default async function globalSetup(): Promise<void> {
  await removeFoldersOfDeadRuns();
  if (process.env.TEST_DATABASE_URL) {
    await dropDatabasesOfDeadRuns(process.env.TEST_DATABASE_URL);
    return;
  }
  const dataDir = await mkdtemp(join(tmpdir(), TEST_FOLDER_PREFIX));
  await chmod(dataDir, 0o755); // the server runs as the "postgres" user when we are root
  const embedded = await EmbeddedDatabase.start({ dataDir });
  process.env.TEST_DATABASE_URL = embedded.url;
  const state = globalThis as { embeddedTestDatabase?: { server: EmbeddedDatabase; dataDir: string } };
  state.embeddedTestDatabase = { server: embedded, dataDir };
  // Interrupted (Ctrl-C): stop the server and remove its folder all the same.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void stopEmbedded().finally(() => process.exit(130));
    });
  }
}

export async function stopEmbedded(): Promise<void> {
  const state = globalThis as { embeddedTestDatabase?: { server: EmbeddedDatabase; dataDir: string } };
  const embedded = state.embeddedTestDatabase;
  state.embeddedTestDatabase = undefined;
  if (!embedded) return;
  const { rm } = await import('node:fs/promises');
  await embedded.server.stop();
  await rm(embedded.dataDir, { recursive: true, force: true });
}
