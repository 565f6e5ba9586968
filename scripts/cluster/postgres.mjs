// The two PostgreSQL servers: Debian's PostgreSQL 15 (the machines' own version; the embedded
// package has no pg_basebackup), run as the OS user `postgres` when we are root.
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { clusterTag, isOwned, runToEnd, spawnOwned, stopPids, tail } from './processes.mjs';
import { saveState, urlsOf } from './state.mjs';

const BIN = process.env.CLUSTER_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const READY_TIMEOUT_MS = 30_000;

// Copied to the replica by pg_basebackup; each server's port is given on its command line.
// fsync off: a throwaway cluster that an OS crash may lose.
const SETTINGS = `
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
wal_level = replica
max_wal_senders = 5
max_replication_slots = 5
wal_keep_size = '64MB'
hot_standby = on
hot_standby_feedback = on
wal_receiver_status_interval = '1s'
max_connections = 150
shared_buffers = '32MB'
fsync = off
log_line_prefix = '%m [%p] %q%a '
`;

const HBA = `local all all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
`;

/** One statement (or a few) as the superuser on `node`'s server. */
export async function serverQuery(state, node, text, database = 'postgres') {
  const client = new pg.Client({ connectionString: urlsOf(state).server(node, database), connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** initdb, the settings and pg_hba.conf above, started; then the service's role and database. */
export async function createPrimary(state, node) {
  const { dataDir } = state.postgres[node];
  await runToEnd(state, `${BIN}/initdb`, ['-D', dataDir, '--auth=trust', '--username=postgres', '--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions'], { asPostgres: true });
  await appendFile(join(dataDir, 'postgresql.conf'), SETTINGS);
  await writeFile(join(dataDir, 'pg_hba.conf'), HBA);
  await startServer(state, node);
  await serverQuery(state, node, 'CREATE ROLE oracle LOGIN');
  await serverQuery(state, node, 'CREATE DATABASE oracle OWNER oracle');
}

/** A streaming replica of `primary`: pg_basebackup -R -X stream, with a replication slot of its own. */
export async function createReplica(state, node, primary) {
  const { dataDir } = state.postgres[node];
  const args = ['-h', '127.0.0.1', '-p', String(state.postgres[primary].port), '-U', 'postgres', '-D', dataDir, '-R', '-X', 'stream', '-c', 'fast', '-C', '-S', node, '--no-sync'];
  await runToEnd(state, `${BIN}/pg_basebackup`, args, { asPostgres: true });
  await startServer(state, node);
}

/** Starts `node`'s postgres and waits until it accepts connections. */
export async function startServer(state, node) {
  const { dataDir, port } = state.postgres[node];
  const log = join(state.logDir, `${node}.log`);
  const pid = spawnOwned(state, {
    program: `${BIN}/postgres`,
    args: ['-D', dataDir, '-p', String(port), '-c', `cluster_name=${clusterTag(state.dir)}-${node}`],
    log,
    asPostgres: true,
  });
  state.pids[node] = pid;
  await saveState(state);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      await serverQuery(state, node, 'SELECT 1');
      return;
    } catch (error) {
      if (!isOwned(pid, state.dir)) throw new Error(`PostgreSQL ${node} exited:\n${tail(log)}`);
      if (Date.now() > deadline) throw new Error(`PostgreSQL ${node} did not accept connections within ${READY_TIMEOUT_MS} ms (${error.message}):\n${tail(log)}`);
      await sleep(100);
    }
  }
}

/** Waits until the primary reports `replica` streaming and the replica replays. */
export async function waitStreaming(state, primary, replica, timeoutMs = 15_000) {
  const name = `${clusterTag(state.dir)}-${replica}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await serverQuery(state, primary, `SELECT state FROM pg_stat_replication WHERE application_name = '${name}'`);
    if (rows[0]?.state === 'streaming') return;
    if (Date.now() > deadline) throw new Error(`the replica ${replica} is not streaming after ${timeoutMs} ms:\n${tail(join(state.logDir, `${replica}.log`))}`);
    await sleep(100);
  }
}

/** PostgreSQL's fast shutdown of `node` (sessions ended; a standby gets all WAL first). */
export async function stopServer(state, node, timeoutMs = 20_000) {
  const pid = state.pids[node];
  if (pid && !(await stopPids(state.dir, [pid], 'SIGINT', timeoutMs))) await stopPids(state.dir, [pid], 'SIGKILL', 5_000);
  delete state.pids[node];
  await saveState(state);
}

/** pg_ctl promote, waiting until `node` accepts writes. */
export async function promote(state, node) {
  await runToEnd(state, `${BIN}/pg_ctl`, ['promote', '-D', state.postgres[node].dataDir, '-w', '-t', '30'], { asPostgres: true });
}
