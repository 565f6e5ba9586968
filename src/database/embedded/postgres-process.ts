import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StartupError } from '../../config/startup-error';
import type { OsUser } from './postgres-os-user';

const INITDB_TIMEOUT_MS = 120_000;
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
const READY_LINE = 'database system is ready to accept connections';

/** English messages (readiness is read from them), and none of our own environment (DATABASE_URL, ADMIN_MASTER_KEY...). */
const CHILD_ENV = { LC_ALL: 'C', LANG: 'C', PATH: '/usr/bin:/bin' };

/** `entered`: its parents are closed to the OS user (e.g. /root), so programs start in it and name it `/proc/self/cwd`. */
export interface ClusterFolder {
  path: string;
  entered: boolean;
}

/** Whether PostgreSQL's programs can name their working directory (Linux's /proc). */
export const canEnterClusterFolder = (): boolean => existsSync('/proc/self/cwd');

function spawnAs(program: string, args: string[], cluster: ClusterFolder, runAs: OsUser | null, stdin: 'ignore' | number): ChildProcess {
  // detached: a Ctrl-C in the terminal reaches this process, which drains requests before it
  // stops the database, not the database directly.
  return spawn(program, args, {
    cwd: cluster.path,
    env: CHILD_ENV,
    detached: true,
    stdio: [stdin, 'pipe', 'pipe'],
    ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
  });
}

const dataDirectory = (cluster: ClusterFolder): string => (cluster.entered ? '/proc/self/cwd' : cluster.path);

/** In an empty folder `runAs` owns; the password comes on stdin from `passwordFile`, an fd `runAs` can read anywhere. */
export async function initdb(program: string, cluster: ClusterFolder, passwordFile: number, runAs: OsUser | null): Promise<void> {
  const child = spawnAs(
    program,
    [`--pgdata=${dataDirectory(cluster)}`, '--auth=scram-sha-256', '--username=postgres', '--pwfile=/dev/stdin', '--encoding=UTF8', '--locale=C', '--no-instructions'],
    cluster,
    runAs,
    passwordFile,
  );
  const output = collect(child);
  const code = await exitOf(child, INITDB_TIMEOUT_MS);
  if (code !== 0) throw new StartupError(`creating the embedded PostgreSQL cluster in ${cluster.path} failed: ${lastProblem(output())}`);
}

/** A running postgres: its process, the lines it writes (to `log`), and a way to stop it. */
export class PostgresProcess {
  private stopping = false;

  private constructor(private readonly child: ChildProcess) {}

  /** Calls `listener` if postgres ends without being asked to (killed, crashed), with how it ended. */
  onUnexpectedExit(listener: (how: string) => void): void {
    this.child.once('exit', (code, signal) => {
      if (!this.stopping) listener(signal ? `signal ${signal}` : `exit code ${code}`);
    });
  }

  /** Starts postgres on 127.0.0.1:`port` and waits until it accepts connections. */
  static async start(program: string, cluster: ClusterFolder, port: number, runAs: OsUser | null, log: (line: string) => void): Promise<PostgresProcess> {
    const child = spawnAs(
      program,
      ['-D', dataDirectory(cluster), '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      cluster,
      runAs,
      'ignore',
    );
    const output = collect(child, log);
    const ready = await new Promise<boolean>((settle) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        settle(value);
      };
      const timer = setTimeout(() => done(false), READY_TIMEOUT_MS);
      child.stderr!.on('data', () => {
        if (output().includes(READY_LINE)) done(true);
      });
      child.once('exit', () => done(false));
      child.once('error', () => done(false));
    });
    if (!ready) {
      child.kill('SIGKILL');
      throw new StartupError(`the embedded PostgreSQL in ${cluster.path} did not start: ${lastProblem(output())}`);
    }
    // Should this process exit without stopping it (process.exit on a failed start), ask for a fast shutdown.
    const stopOnExit = () => child.kill('SIGINT');
    process.once('exit', stopOnExit);
    child.once('exit', () => process.off('exit', stopOnExit));
    return new PostgresProcess(child);
  }

  /** PostgreSQL's fast shutdown (sessions ended, data flushed); SIGKILL if it takes too long. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = exitOf(this.child, STOP_TIMEOUT_MS);
    this.child.kill('SIGINT');
    if ((await exited) === 'timeout') {
      this.child.kill('SIGKILL');
      await exitOf(this.child, STOP_TIMEOUT_MS);
    }
  }
}

/** Stops a postgres a killed server left running on `clusterDir`; returns its pid, or null if none. */
export async function stopLeftover(clusterDir: string): Promise<number | null> {
  let pid: number;
  try {
    pid = Number.parseInt((await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0], 10);
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isPostgres(pid)) return null;
  process.kill(pid, 'SIGINT'); // PostgreSQL's fast shutdown
  for (let waited = 0; waited < STOP_TIMEOUT_MS && isAlive(pid); waited += 100) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (let waited = 0; waited < STOP_TIMEOUT_MS && isAlive(pid); waited += 100) await sleep(100);
  return pid;
}

/** Whether process `pid` exists (EPERM: it does, owned by another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `pid` is a live postgres (a pid from an old postmaster.pid may belong to anything by now). */
function isPostgres(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0].endsWith('postgres');
  } catch {
    return process.platform !== 'linux'; // no /proc: trust postmaster.pid, as pg_ctl does
  }
}

/** Keeps every line the child writes (and hands each to `log`); returns what it wrote so far. */
function collect(child: ChildProcess, log?: (line: string) => void): () => string {
  let text = '';
  child.once('error', (error) => (text += `\n${error.message}\n`)); // e.g. EACCES: the program is not reachable
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      if (text.length < 64 * 1024) text += chunk;
      if (log) for (const line of chunk.split('\n')) if (line.trim()) log(line.trim());
    });
  }
  return () => text;
}

function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | 'timeout'> {
  return new Promise((settle) => {
    const timer = setTimeout(() => settle('timeout'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      settle(code ?? -1);
    });
    child.once('error', () => {
      clearTimeout(timer);
      settle(-1);
    });
  });
}

/** The most telling line of what a failed program wrote: its last FATAL or error line. */
function lastProblem(output: string): string {
  const lines = output.split('\n').map((line) => line.trim()).filter(Boolean);
  const problem = [...lines].reverse().find((line) => /FATAL|ERROR|error|could not|Permission denied/.test(line));
  return problem ?? lines.at(-1) ?? 'no output (see LOG_LEVEL=debug)';
}
