import { readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { isAlive } from '../../src/database/embedded-database';
import { DataFolderLock } from '../../src/database/embedded/data-folder-lock';
import { stopLeftover } from '../../src/database/embedded/postgres-process';

/** Temporary folders of the test runs' embedded servers: `oracle-test-<random>` (mkdtemp). */
export const TEST_FOLDER_PREFIX = 'oracle-test-';
const TEST_FOLDER = /^oracle-test-[A-Za-z0-9]{6}$/;

/** Test databases carry the pid of the run that made them: `oracle_test_<pid>_<random>`. */
export const testDatabaseName = (suffix: string) => `oracle_test_${process.pid}_${suffix}`;

/**
 * Removes this user's test folders no live server holds (their run was killed before it could
 * clean up). Another user's are theirs to remove: the temp folder is shared, and theirs are
 * closed to us (EACCES) or, for root, not ours to touch.
 */
export async function removeFoldersOfDeadRuns(): Promise<void> {
  for (const entry of await readdir(tmpdir())) {
    if (!TEST_FOLDER.test(entry)) continue;
    const folder = join(tmpdir(), entry);
    try {
      if ((await stat(folder)).uid !== process.getuid?.()) continue;
      if ((await DataFolderLock.holder(folder)) !== null) continue; // a live run's
      await stopLeftover(join(folder, 'postgres'));
      await rm(folder, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to read: left as it is.
    }
  }
}

/** Drops the test databases of runs that are no longer alive (killed before their suites dropped them). */
export async function dropDatabasesOfDeadRuns(serverUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'oracle\\_test\\_%'");
    for (const { datname } of rows) {
      const pid = Number(/^oracle_test_(\d+)_[0-9a-f]+$/.exec(datname)?.[1]);
      if (pid && !isAlive(pid)) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}
