// HAProxy: the load balancer in front of the instances, and the primary's stable address
// (a plain TCP forward that follows the primary at a failover, as a VIP or DNS name would).
import { rename, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isOwned, spawnOwned, stopPids, tail } from './processes.mjs';
import { saveState } from './state.mjs';

const HAPROXY = process.env.CLUSTER_HAPROXY ?? '/usr/sbin/haproxy';
const cfgPath = (state) => join(state.dir, 'haproxy.cfg');

// The comments go into haproxy.cfg, where they are read.
function config(state) {
  const { ports } = state;
  const servers = ports.instances.map(({ http }, i) => `  server instance${i + 1} 127.0.0.1:${http} check`).join('\n');
  const fallbacks = ports.instances.map(({ http }, i) => `  server fallback${i + 1} 127.0.0.1:${http} backup`).join('\n');
  return `# Written by scripts/cluster (npm run cluster); see docs/cluster.md.
global
  maxconn 4000
  stats socket ipv4@127.0.0.1:${ports.balancerAdmin} level admin

defaults
  mode http
  timeout connect 500ms
  timeout client 30s
  timeout server 15s
  timeout http-request 10s
  timeout http-keep-alive 2s
  # Readiness itself waits up to 1 s for the database.
  timeout check 1500ms
  # A failed request is sent again, to another instance; one that may have reached the service
  # (anything but a refused connection) only if it is a GET or carries an Idempotency-Key.
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response junk-response response-timeout 502 503 504

# Server state changes go to stderr; of the requests, only the failed ones are logged.
frontend api
  bind 127.0.0.1:${ports.balancer}
  log stdout format raw local0 info
  option httplog
  option dontlog-normal
  default_backend instances

backend instances
  balance roundrobin
  option httpchk
  http-check send meth GET uri /health/ready ver HTTP/1.1 hdr Host localhost
  http-check expect status 200
  http-request disable-l7-retry if !METH_GET !{ req.hdr(idempotency-key) -m found }
  http-response set-header x-cluster-instance %s
  # Out after two failed checks 250 ms apart, within the instances' SHUTDOWN_DELAY_MS (1 s).
  # Idle connections are closed within ~1 s, long before the instances' keep-alive ends.
  default-server inter 250 fastinter 250 downinter 500 fall 2 rise 2 pool-purge-delay 1s
${servers}
  # With every instance out (the database down for all of them), requests still go to them:
  # they answer 5030 in the envelope, where the balancer's own 503 would be an HTML page.
  option allbackups
${fallbacks}

# The primary's stable address (DATABASE_DIRECT_URL): moved at a failover, as a VIP would be.
listen primary_address
  mode tcp
  bind 127.0.0.1:${ports.primaryAddress}
  timeout client 24h
  timeout server 24h
  retries 1
  server primary 127.0.0.1:${state.postgres[state.roles.primary].port}
`;
}

async function writeConfig(state) {
  await writeFile(`${cfgPath(state)}.tmp`, config(state));
  await rename(`${cfgPath(state)}.tmp`, cfgPath(state));
}

export async function startHaproxy(state) {
  await writeConfig(state);
  const log = join(state.logDir, 'haproxy.log');
  const pid = spawnOwned(state, { program: HAPROXY, args: ['-f', cfgPath(state), '-db'], log });
  state.pids.haproxy = pid;
  await saveState(state);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await haproxyCommand(state, 'show info');
      return;
    } catch (error) {
      if (!isOwned(pid, state.dir)) throw new Error(`HAProxy exited:\n${tail(log)}`);
      if (Date.now() > deadline) throw new Error(`HAProxy did not answer within 10 s (${error.message}):\n${tail(log)}`);
      await sleep(100);
    }
  }
}

/** One command of HAProxy's runtime API; its whole answer. */
export function haproxyCommand(state, command) {
  return new Promise((resolveAnswer, reject) => {
    const socket = connect(state.ports.balancerAdmin, '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(2_000, () => socket.destroy(new Error(`no answer to "${command}"`)));
    socket.on('connect', () => socket.write(`${command}\n`));
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolveAnswer(answer));
    socket.on('error', reject);
  });
}

/**
 * Each instance as the balancer sees it: status (UP, DOWN, ...), its last check and its code,
 * and how often a request meant for it was retried, or sent to another instance instead.
 */
export async function balancerServers(state) {
  const [header, ...lines] = (await haproxyCommand(state, 'show stat')).trim().split('\n');
  const names = header.replace(/^# /, '').split(',');
  return lines
    .map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i], value])))
    .filter((row) => row.pxname === 'instances' && /^instance\d+$/.test(row.svname))
    .map((row) => ({
      name: row.svname,
      status: row.status,
      check: row.check_status,
      checkCode: row.check_code ? Number(row.check_code) : null,
      retries: Number(row.wretr),
      redispatches: Number(row.wredis),
    }));
}

/** Moves the primary's address to the current primary: the runtime API now, the file for the record. */
export async function repointPrimaryAddress(state) {
  await writeConfig(state);
  const port = state.postgres[state.roles.primary].port;
  const answer = await haproxyCommand(state, `set server primary_address/primary addr 127.0.0.1 port ${port}`);
  if (!/changed|no need to change/i.test(answer)) throw new Error(`HAProxy refused the new primary address: ${answer.trim()}`);
}

export async function stopHaproxy(state) {
  await stopPids(state.dir, [state.pids.haproxy], 'SIGTERM', 5_000);
  delete state.pids.haproxy;
  await saveState(state);
}
