// The state file: everything a later command (--down, a test's helper) needs to find the
// cluster again: its ports, folders, roles, keys and the pids of what it started.
import { existsSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEFAULT_DIR = join(REPO_ROOT, '.cluster');
export const INSTANCE_COUNT = 3;

export const clusterDir = (dir) => resolve(dir ?? process.env.CLUSTER_DIR ?? DEFAULT_DIR);
const stateFile = (dir) => join(dir, 'state.json');

export function stateExists(dir) {
  return existsSync(stateFile(clusterDir(dir)));
}

/** The state of the cluster in `dir`; throws when there is none. */
export function loadState(dir) {
  const path = stateFile(clusterDir(dir));
  if (!existsSync(path)) throw new Error(`no cluster in ${clusterDir(dir)} (start one with npm run cluster)`);
  return JSON.parse(readFileSync(path, 'utf8'));
}

let writes = 0;

/** Written whole and renamed into place, so a reader never sees half a file. */
export async function saveState(state) {
  const path = stateFile(state.dir);
  const temporary = `${path}.${process.pid}-${++writes}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** Connection addresses, derived from the ports and the current roles. */
export function urlsOf(state) {
  const { ports } = state;
  const pooler = (database) => `postgres://oracle@127.0.0.1:${ports.pgbouncer}/${database}`;
  return {
    balancer: `http://127.0.0.1:${ports.balancer}`,
    database: pooler('oracle'),
    databaseRead: pooler('oracle_read'),
    databaseDirect: `postgres://oracle@127.0.0.1:${ports.primaryAddress}/oracle`,
    pgbouncerAdmin: `postgres://pgbouncer@127.0.0.1:${ports.pgbouncer}/pgbouncer`,
    redis: `redis://127.0.0.1:${ports.redis}`,
    instance: (n) => `http://127.0.0.1:${ports.instances[n - 1].http}`,
    /** A PostgreSQL server itself, as its superuser (for checks and for the tests). */
    server: (node, database = 'oracle') => `postgres://postgres@127.0.0.1:${state.postgres[node].port}/${database}`,
  };
}
