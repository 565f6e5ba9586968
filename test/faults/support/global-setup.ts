import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isAlive } from '../../../src/database/embedded-database';

/**
 * The fault suites spawn the built server (`npm run test:faults` builds it first). They run a
 * private copy of dist/, so that a build started meanwhile in the same working tree (which
 * empties dist/) cannot pull the server out from under a running suite.
 */
export default async function globalSetup(_globalConfig: unknown, projectConfig: { rootDir: string }): Promise<void> {
  const dist = join(projectConfig.rootDir, 'dist');
  // Under node_modules, so the copied server still resolves its packages from the project's node_modules.
  const snapshotRoot = join(projectConfig.rootDir, 'node_modules', '.cache', 'settlement-oracle-faults');
  if (!existsSync(join(dist, 'main.js'))) {
    throw new Error('dist/main.js is missing: run `npm run build` first (`npm run test:faults` does)');
  }
  await mkdir(snapshotRoot, { recursive: true });
  for (const entry of await readdir(snapshotRoot)) {
    const pid = Number(/^run-(\d+)$/.exec(entry)?.[1]);
    if (pid && !isAlive(pid)) await rm(join(snapshotRoot, entry), { recursive: true, force: true });
  }
  const snapshot = join(snapshotRoot, `run-${process.pid}`);
  await rm(snapshot, { recursive: true, force: true });
  await cp(dist, snapshot, { recursive: true });
  if (!existsSync(join(snapshot, 'main.js'))) throw new Error('dist/ changed while it was being copied: run again');
  process.env.FAULTS_SERVER_DIR = snapshot;
}
