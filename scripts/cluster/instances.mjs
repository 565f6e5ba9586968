// The built service, three times: `node <start:prod's flags> dist/main.js`, each instance with
// its own PORT and METRICS_PORT, behind the balancer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { balancerServers } from './haproxy.mjs';
import { httpJson } from './http.mjs';
import { isOwned, spawnOwned, stopPids, tail } from './processes.mjs';
import { REPO_ROOT, saveState, urlsOf } from './state.mjs';

const MAIN = join(REPO_ROOT, 'dist', 'main.js');
export const SHUTDOWN_DELAY_MS = 1_000;
export const SHUTDOWN_GRACE_MS = 3_000;
const READY_TIMEOUT_MS = 60_000;

/** The Node flags production runs the service with: those of package.json's start:prod. */
function productionFlags() {
  const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  return scripts['start:prod'].split(/\s+/).filter((word) => word.startsWith('--'));
}

function instanceEnv(state, n) {
  const urls = urlsOf(state);
  const { http, metrics } = state.ports.instances[n - 1];
  return {
    HOME: state.home,
    PORT: String(http),
    METRICS_PORT: String(metrics),
    // --instances-direct: the primary without the pooler, at its address that follows failovers.
    DATABASE_URL: state.mode === 'direct' ? urls.databaseDirect : urls.database,
    DATABASE_DIRECT_URL: urls.databaseDirect,
    DATABASE_READ_URL: urls.databaseRead,
    REDIS_URL: urls.redis,
    ADMIN_MASTER_KEY: state.keys.adminMasterKey,
    SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
    SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
    // Longer than the balancer keeps idle connections: it closes them, never the instance.
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '30000',
    TRUST_PROXY: 'loopback',
    LOG_LEVEL: 'warn',
    ...state.instanceEnv,
  };
}

/** Spawns instance `n` (1-based) without waiting. */
export async function spawnInstance(state, n) {
  const name = `instance${n}`;
  state.pids[name] = spawnOwned(state, {
    program: process.execPath,
    args: [...productionFlags(), MAIN],
    log: join(state.logDir, `${name}.log`),
    cwd: REPO_ROOT,
    env: instanceEnv(state, n),
  });
  await saveState(state);
}

/** Waits until instance `n` answers /health/ready 200 on its own port. */
export async function waitInstanceReady(state, n, timeoutMs = READY_TIMEOUT_MS) {
  const name = `instance${n}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await httpJson('GET', `${urlsOf(state).instance(n)}/health/ready`, { timeoutMs: 2_000 }).catch(() => null);
    if (ready?.status === 200) return;
    if (!isOwned(state.pids[name], state.dir)) throw new Error(`${name} exited:\n${tail(join(state.logDir, `${name}.log`))}`);
    if (Date.now() > deadline) throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${tail(join(state.logDir, `${name}.log`))}`);
    await sleep(100);
  }
}

/** Waits until the balancer has instance `n` (each of `ns`) in a given status: UP, or DOWN. */
export async function waitBalancer(state, ns, status, timeoutMs = 10_000) {
  const names = ns.map((n) => `instance${n}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const servers = await balancerServers(state);
    if (names.every((name) => servers.find((server) => server.name === name)?.status === status)) return;
    if (Date.now() > deadline) throw new Error(`the balancer does not have ${names.join(', ')} ${status} after ${timeoutMs} ms: ${JSON.stringify(servers)}`);
    await sleep(50);
  }
}

/** Starts instance `n` again and waits until it is ready and back in the balancer. */
export async function startInstance(state, n) {
  await spawnInstance(state, n);
  await waitInstanceReady(state, n);
  await waitBalancer(state, [n], 'UP');
}

/** Stops instance `n` (SIGTERM: it drains; SIGKILL: a crash) and waits until it is gone. */
export async function stopInstance(state, n, signal = 'SIGTERM') {
  const name = `instance${n}`;
  const pid = state.pids[name];
  const drained = await stopPids(state.dir, [pid], signal, SHUTDOWN_DELAY_MS + SHUTDOWN_GRACE_MS + 5_000);
  if (!drained) await stopPids(state.dir, [pid], 'SIGKILL', 5_000);
  delete state.pids[name];
  await saveState(state);
  return drained;
}
