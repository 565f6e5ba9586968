// Starts the whole cluster in `dir`: primary, streaming replica, PgBouncer, Redis, HAProxy,
// then three instances of the built service at once, and through the balancer a partner `demo` with the README's market.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { stopCluster } from './down.mjs';
import { prepareFolders } from './folders.mjs';
import { startHaproxy } from './haproxy.mjs';
import { httpJson } from './http.mjs';
import { ensureBuilt } from '../ensure-built.mjs';
import { spawnInstance, waitBalancer, waitInstanceReady } from './instances.mjs';
import { startPgBouncer } from './pgbouncer.mjs';
import { freePorts } from './ports.mjs';
import { createPrimary, createReplica, serverQuery, waitStreaming } from './postgres.mjs';
import { ownedPids } from './processes.mjs';
import { startRedis } from './redis.mjs';
import { clusterDir, INSTANCE_COUNT, loadState, saveState, stateExists, urlsOf } from './state.mjs';

export class AlreadyRunning extends Error {
  constructor(state) {
    super(`a cluster already runs in ${state.dir}`);
    this.state = state;
  }
}

const instanceNumbers = Array.from({ length: INSTANCE_COUNT }, (_, i) => i + 1);

/**
 * options: dir, mode ('pooler' | 'direct'), portBase, instanceEnv (extra variables for the
 * instances), keepOnInstanceFailure (keep the rest running and record the error, for tests).
 */
export async function startCluster(options = {}) {
  const started = Date.now();
  const dir = clusterDir(options.dir);
  if (stateExists(dir) && ownedPids(dir).length > 0) throw new AlreadyRunning(loadState(dir));
  await stopCluster(dir); // what a crashed or killed earlier run left
  await ensureBuilt();
  await mkdir(dir, { recursive: true });
  const folders = await prepareFolders(dir);
  const [primary, replica, pgbouncer, redis, balancer, balancerAdmin, primaryAddress, ...rest] = await freePorts(7 + 2 * INSTANCE_COUNT, options.portBase);
  const state = {
    dir,
    ...folders,
    mode: options.mode ?? 'pooler',
    status: 'starting',
    ports: { primary, replica, pgbouncer, redis, balancer, balancerAdmin, primaryAddress, instances: instanceNumbers.map((n) => ({ http: rest[2 * n - 2], metrics: rest[2 * n - 1] })) },
    postgres: { pg1: { port: primary, dataDir: join(folders.runDir, 'pg1') }, pg2: { port: replica, dataDir: join(folders.runDir, 'pg2') } },
    roles: { primary: 'pg1', replica: 'pg2' },
    keys: { adminMasterKey: `soa-cluster-${randomBytes(24).toString('base64url')}`, partnerKey: null },
    instanceEnv: options.instanceEnv ?? {},
    pids: {},
    timings: {},
  };
  await saveState(state);

  await createPrimary(state, 'pg1');
  await createReplica(state, 'pg2', 'pg1');
  await waitStreaming(state, 'pg1', 'pg2');
  await startPgBouncer(state);
  await startRedis(state);
  await startHaproxy(state);
  state.timings.infrastructureMs = Date.now() - started;

  try {
    await startInstances(state);
  } catch (error) {
    if (!options.keepOnInstanceFailure) throw error;
    state.status = 'instances-failed';
    state.instancesError = error.message;
    await saveState(state);
    return state;
  }
  state.status = 'running';
  state.timings.totalMs = Date.now() - started;
  await saveState(state);
  return state;
}

/** All three at once on the empty database (they migrate it once between them), then the demo partner and its market. */
async function startInstances(state) {
  const [{ exists }] = await serverQuery(state, state.roles.primary, "SELECT to_regclass('schema_migrations') IS NOT NULL AS exists", 'oracle');
  state.schemaAtSpawn = exists ? 'present' : 'empty';
  const spawnedAt = [];
  for (const n of instanceNumbers) {
    await spawnInstance(state, n);
    spawnedAt.push(Date.now());
  }
  state.timings.instancesSpawnSpreadMs = spawnedAt.at(-1) - spawnedAt[0];
  await Promise.all(instanceNumbers.map((n) => waitInstanceReady(state, n)));
  await waitBalancer(state, instanceNumbers, 'UP');
  const created = await httpJson('POST', `${urlsOf(state).balancer}/admin/partners`, {
    body: { source: 'demo', name: 'Demo' },
    headers: { authorization: `Bearer ${state.keys.adminMasterKey}` },
  });
  if (created.body?.code !== 0) throw new Error(`creating the partner demo through the balancer answered ${created.status} ${created.text}`);
  state.keys.partnerKey = created.body.data.api_key;
  await createReadmeMarket(state);
}

/** The resolved market the README's "Try it" reads and disputes, as the zero-setup demo data has it. */
async function createReadmeMarket(state) {
  const slug = 'btc-above-100k-2026';
  const admin = (path, body) =>
    httpJson('POST', `${urlsOf(state).balancer}${path}`, { body, headers: { authorization: `Bearer ${state.keys.adminMasterKey}` } });
  const created = await admin('/admin/markets', { source: 'demo', slug });
  const resolved = created.body?.code === 0 && await admin(`/admin/markets/${created.body.data.id}/resolve`, {
    verdict: 'YES',
    confidence: 'HIGH',
    reasoning: `Resolved from the settlement sources of ${slug}: the condition was met before the deadline.`,
    proofs: [{ chain: 'base', tx_hash: `0x13${'ab'.repeat(31)}` }, { chain: 'bsc', tx_hash: `0x13${'cd'.repeat(31)}` }],
    resolved_at: '2026-11-01T12:00:00Z',
  });
  if (resolved?.body?.code !== 0) throw new Error(`creating the market ${slug} through the balancer answered ${JSON.stringify((resolved || created).body)}`);
}
