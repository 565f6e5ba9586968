// What the CLI and the cluster tests use. Every helper takes the cluster folder (default
// .cluster/, or CLUSTER_DIR), reads the state file and writes back what it changed.
import { balancerServers as servers, repointPrimaryAddress as moveAddress } from './haproxy.mjs';
import { startInstance as start, stopInstance as stop, waitBalancer as wait } from './instances.mjs';
import { pgbouncerAdmin as admin, repointPgBouncer as repoint } from './pgbouncer.mjs';
import { promote, serverQuery as query, stopServer } from './postgres.mjs';
import { loadState, saveState } from './state.mjs';

export { AlreadyRunning, startCluster } from './up.mjs';
export { stopCluster } from './down.mjs';
export { clusterDir, loadState, urlsOf } from './state.mjs';
export { SHUTDOWN_DELAY_MS, SHUTDOWN_GRACE_MS } from './instances.mjs';

/** Stops the current primary (fast shutdown). Its role stays until promoteReplica. */
export async function stopPrimary(dir) {
  const state = loadState(dir);
  await stopServer(state, state.roles.primary);
}

/** pg_ctl promote on the replica, which becomes the primary; there is no replica after it. */
export async function promoteReplica(dir) {
  const state = loadState(dir);
  const node = state.roles.replica;
  if (!node) throw new Error('there is no replica to promote');
  await promote(state, node);
  state.roles = { primary: node, replica: null };
  await saveState(state);
}

/** Rewrites pgbouncer.ini for the current roles and RELOADs it through the admin console. */
export const repointPgBouncer = async (dir) => repoint(loadState(dir));

/** Moves the primary's stable address (DATABASE_DIRECT_URL) to the current primary. */
export const repointPrimaryAddress = async (dir) => moveAddress(loadState(dir));

export const stopInstance = async (dir, n, signal) => stop(loadState(dir), n, signal);
export const startInstance = async (dir, n) => start(loadState(dir), n);
export const waitBalancer = async (dir, ns, status, timeoutMs) => wait(loadState(dir), ns, status, timeoutMs);
export const balancerServers = async (dir) => servers(loadState(dir));
export const pgbouncerAdmin = async (dir, command) => admin(loadState(dir), command);
export const serverQuery = async (dir, node, text, database) => query(loadState(dir), node, text, database);
