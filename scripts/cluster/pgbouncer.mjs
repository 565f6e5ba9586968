// PgBouncer 1.18 in transaction pooling mode in front of both servers: `oracle` is the
// primary, `oracle_read` the replica; the admin console is the database `pgbouncer`.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { isOwned, spawnOwned, stopPids, tail } from './processes.mjs';
import { saveState, urlsOf } from './state.mjs';

const PGBOUNCER = process.env.CLUSTER_PGBOUNCER ?? '/usr/sbin/pgbouncer';
export const ADMIN_USER = 'pgbouncer';

const iniPath = (state) => join(state.runDir, 'pgbouncer.ini');

// No ignore_startup_parameters: a client sending statement_timeout at startup is refused
// (08P01) rather than silently losing its timeout. query_wait_timeout: a client waiting for a
// server that is down gets an error in 5 s instead of the default 120.
function ini(state) {
  const { primary, replica } = state.roles;
  const server = (node) => `host=127.0.0.1 port=${state.postgres[node].port} dbname=oracle`;
  return `[databases]
oracle = ${server(primary)}
oracle_read = ${server(replica ?? primary)}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${state.ports.pgbouncer}
unix_socket_dir =
auth_type = trust
auth_file = ${join(state.runDir, 'userlist.txt')}
admin_users = ${ADMIN_USER}
stats_users = ${ADMIN_USER}
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
reserve_pool_size = 5
server_login_retry = 1
server_connect_timeout = 2
query_wait_timeout = 5
pidfile = ${join(state.runDir, 'pgbouncer.pid')}
log_connections = 0
log_disconnections = 0
`;
}

/** Written whole and renamed into place: a RELOAD never reads half a file. */
async function writeIni(state) {
  await writeFile(`${iniPath(state)}.tmp`, ini(state), { mode: 0o644 });
  await rename(`${iniPath(state)}.tmp`, iniPath(state));
}

export async function startPgBouncer(state) {
  await writeFile(join(state.runDir, 'userlist.txt'), `"oracle" ""\n"${ADMIN_USER}" ""\n`, { mode: 0o644 });
  await writeIni(state);
  const log = join(state.logDir, 'pgbouncer.log');
  const pid = spawnOwned(state, { program: PGBOUNCER, args: [iniPath(state)], log, asPostgres: true });
  state.pids.pgbouncer = pid;
  await saveState(state);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await pgbouncerAdmin(state, 'SHOW VERSION');
      return;
    } catch (error) {
      if (!isOwned(pid, state.dir)) throw new Error(`PgBouncer exited:\n${tail(log)}`);
      if (Date.now() > deadline) throw new Error(`PgBouncer did not answer within 10 s (${error.message}):\n${tail(log)}`);
      await sleep(100);
    }
  }
}

/** One command on the admin console (SHOW ..., RELOAD); its rows. */
export async function pgbouncerAdmin(state, command) {
  const client = new pg.Client({ connectionString: urlsOf(state).pgbouncerAdmin, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query(command)).rows;
  } finally {
    await client.end();
  }
}

/** Points `oracle` at the current primary and `oracle_read` at the replica (or the primary without one), then RELOAD. */
export async function repointPgBouncer(state) {
  await writeIni(state);
  await pgbouncerAdmin(state, 'RELOAD');
}

export async function stopPgBouncer(state) {
  await stopPids(state.dir, [state.pids.pgbouncer], 'SIGTERM', 5_000);
  delete state.pids.pgbouncer;
  await saveState(state);
}
