// Processes the cluster owns: each carries ORACLE_CLUSTER_DIR=<its folder> in its environment,
// so that --down finds all of them (a crashed start's unrecorded ones too) by that mark alone,
// and a recorded pid reused by another program is never signalled.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const MARK = 'ORACLE_CLUSTER_DIR';
const execFileAsync = promisify(execFile);

/** The environment every program of the cluster gets: C messages, and the mark. */
function environment(state, env) {
  return { PATH: '/usr/bin:/bin', LANG: 'C', LC_ALL: 'C', HOME: state.runDir, ...env, [MARK]: state.dir };
}

/** Who runs PostgreSQL and PgBouncer: as root, the OS user `postgres` (both refuse root). */
function identity(state, asPostgres) {
  return asPostgres && state.osUser ? { uid: state.osUser.uid, gid: state.osUser.gid } : {};
}

/**
 * Starts a long-running program in its own session, its output appended to `log`, and returns
 * its pid. It outlives this process: `npm run cluster` returns once everything is up.
 */
export function spawnOwned(state, { program, args, log, cwd, env = {}, asPostgres = false }) {
  const fd = openSync(log, 'a');
  try {
    const child = spawn(program, args, {
      cwd: cwd ?? state.runDir,
      env: environment(state, env),
      detached: true,
      stdio: ['ignore', fd, fd],
      ...identity(state, asPostgres),
    });
    child.on('error', () => undefined); // a missing program: no pid, reported below
    if (!child.pid) throw new Error(`could not start ${program}`);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** Runs a program to its end (initdb, pg_basebackup, pg_ctl); its output in the error if it fails. */
export async function runToEnd(state, program, args, { asPostgres = false, timeoutMs = 60_000 } = {}) {
  try {
    await execFileAsync(program, args, { cwd: state.runDir, env: environment(state, {}), timeout: timeoutMs, ...identity(state, asPostgres) });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim().split('\n').slice(-5).join('\n');
    throw new Error(`${program.split('/').pop()} failed: ${output || error.message}`);
  }
}

/** A name for the cluster in `dir`, in PostgreSQL's cluster_name and so in its processes' titles. */
export const clusterTag = (dir) => `oracle-${createHash('sha256').update(dir).digest('hex').slice(0, 10)}`;

/**
 * Whether `pid` is a live process of the cluster in `dir` (false for a zombie or a stranger).
 * PostgreSQL's children write their title over their environment: they are known by that title.
 */
export function isOwned(pid, dir) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    if (readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${MARK}=${dir}`)) return true;
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith(`postgres: ${clusterTag(dir)}-`);
  } catch {
    return false;
  }
}

/** Every live process of the cluster in `dir`. */
export function ownedPids(dir) {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid && isOwned(pid, dir));
}

/** Sends `signal` to those of `pids` the cluster owns and waits until they are gone; false on timeout. */
export async function stopPids(dir, pids, signal, timeoutMs) {
  const mine = pids.filter((pid) => isOwned(pid, dir));
  for (const pid of mine) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
  const deadline = Date.now() + timeoutMs;
  while (mine.some((pid) => isOwned(pid, dir))) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** The last lines of a log file, for a failure message. */
export function tail(path, lines = 12) {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
