// Stops everything the cluster in `dir` started, in order (instances first, so they drain;
// PostgreSQL last), then anything else carrying its mark (a crashed start's leftovers).
import { existsSync, readFileSync } from 'node:fs';
import { removeData } from './folders.mjs';
import { stopHaproxy } from './haproxy.mjs';
import { INSTANCE_COUNT } from './state.mjs';
import { stopInstance } from './instances.mjs';
import { stopPgBouncer } from './pgbouncer.mjs';
import { ownedPids, stopPids } from './processes.mjs';
import { stopServer } from './postgres.mjs';
import { stopRedis } from './redis.mjs';
import { clusterDir, loadState, stateExists } from './state.mjs';

/** Returns how many processes it stopped; throws if one is left. */
export async function stopCluster(dirOption) {
  const dir = clusterDir(dirOption);
  if (!existsSync(dir)) return 0;
  const before = ownedPids(dir).length;
  const state = readableState(dir);
  if (state) {
    const running = Array.from({ length: INSTANCE_COUNT }, (_, i) => i + 1).filter((n) => state.pids[`instance${n}`]);
    await Promise.all(running.map((n) => stopInstance(state, n, 'SIGTERM')));
    if (state.pids.pgbouncer) await stopPgBouncer(state);
    if (state.pids.haproxy) await stopHaproxy(state);
    if (state.pids.redis) await stopRedis(state);
    const servers = Object.keys(state.postgres).sort((a, b) => (a === state.roles.primary) - (b === state.roles.primary));
    for (const node of servers) if (state.pids[node]) await stopServer(state, node);
  }
  const leftovers = ownedPids(dir);
  const postmasters = leftovers.filter(isPostmaster);
  await stopPids(dir, postmasters, 'SIGINT', 10_000);
  if (leftovers.length > 0 && !(await stopPids(dir, leftovers, 'SIGTERM', 5_000))) await stopPids(dir, leftovers, 'SIGKILL', 5_000);
  const stubborn = ownedPids(dir);
  if (stubborn.length > 0) throw new Error(`processes of the cluster still run after SIGKILL: ${stubborn.join(', ')}`);
  await removeData(dir, state);
  return before;
}

/** The state, or null when there is none or it cannot be read: the sweep by mark still runs. */
function readableState(dir) {
  try {
    return stateExists(dir) ? loadState(dir) : null;
  } catch (error) {
    console.error(`ignoring the unreadable state file in ${dir} (${error.message}): stopping its processes by their mark`);
    return null;
  }
}

/** A postmaster (not one of its children): it gets PostgreSQL's fast shutdown. */
function isPostmaster(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0].endsWith('/postgres');
  } catch {
    return false;
  }
}
