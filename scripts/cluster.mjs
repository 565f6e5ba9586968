// npm run cluster: a local cluster (PostgreSQL primary and streaming replica, PgBouncer,
// Redis, HAProxy, three instances of the built service) on loopback; see docs/cluster.md.
//   npm run cluster [-- --instances-direct] [-- --port-base N] [-- --env NAME=VALUE ...]
//   npm run cluster -- --down
import { parseArgs } from 'node:util';
import { AlreadyRunning, clusterDir, startCluster, stopCluster, urlsOf } from './cluster/index.mjs';

const { values } = parseArgs({
  options: {
    down: { type: 'boolean', default: false },
    'instances-direct': { type: 'boolean', default: false },
    'port-base': { type: 'string' },
    dir: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
  },
});

function describe(state) {
  const urls = urlsOf(state);
  const { ports } = state;
  const lines = [
    `  balancer     ${urls.balancer}   (HAProxy; runtime API on 127.0.0.1:${ports.balancerAdmin})`,
    ...ports.instances.map(({ http, metrics }, i) => `  instance${i + 1}    http://127.0.0.1:${http}   metrics :${metrics}   pid ${state.pids[`instance${i + 1}`] ?? '-'}`),
    `  instances    DATABASE_URL ${state.mode === 'direct' ? `${urls.databaseDirect} (--instances-direct)` : urls.database}`,
    `  PgBouncer    ${urls.database} (primary), ${urls.databaseRead} (replica)`,
    `               admin console: psql ${urls.pgbouncerAdmin}`,
    `  PostgreSQL   primary ${state.roles.primary} 127.0.0.1:${state.postgres[state.roles.primary].port}, replica ${state.roles.replica ?? '-'}${state.roles.replica ? ` 127.0.0.1:${state.postgres[state.roles.replica].port}` : ''}, superuser postgres`,
    `               the primary's address (DATABASE_DIRECT_URL): ${urls.databaseDirect}`,
    `  Redis        ${urls.redis}`,
    '',
    `    export B=${urls.balancer}`,
    `    export ADMIN_KEY=${state.keys.adminMasterKey}`,
    ...(state.keys.partnerKey ? [`    export API_KEY=${state.keys.partnerKey}   # partner demo`] : []),
    '',
    `  logs         ${state.logDir}`,
    `  data         ${state.runDir}`,
    `  stop         npm run cluster -- --down${state.dir === clusterDir() ? '' : ` --dir ${state.dir}`}`,
  ];
  return lines.join('\n');
}

async function main() {
  if (values.down) {
    const stopped = await stopCluster(values.dir);
    console.log(stopped ? `stopped the cluster in ${clusterDir(values.dir)} (${stopped} processes)` : `no cluster ran in ${clusterDir(values.dir)}`);
    return 0;
  }
  const malformed = values.env.find((pair) => !/^[A-Z_][A-Z0-9_]*=/.test(pair));
  if (malformed) {
    console.error(`--env takes NAME=VALUE, not ${malformed}`);
    return 2;
  }
  const instanceEnv = Object.fromEntries(values.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  const portBase = values['port-base'] === undefined ? undefined : Number(values['port-base']);
  const started = Date.now();
  let state;
  try {
    state = await startCluster({ dir: values.dir, mode: values['instances-direct'] ? 'direct' : 'pooler', portBase, instanceEnv });
  } catch (error) {
    if (error instanceof AlreadyRunning) {
      console.error(`A cluster already runs in ${error.state.dir} (stop it first: npm run cluster -- --down):\n${describe(error.state)}`);
      return 1;
    }
    console.error(`the cluster did not start: ${error.message}\nstopping what started (logs stay in ${clusterDir(values.dir)}/logs)`);
    await stopCluster(values.dir).catch((stopError) => console.error(stopError.message));
    return 1;
  }
  console.log(`Cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s:\n${describe(state)}`);
  return 0;
}

process.exitCode = await main();
