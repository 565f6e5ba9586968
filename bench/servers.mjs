// bench/servers.mjs: starting, watching and stopping the servers under test, each in its own
// process: the service (`node dist/main.js`, as production runs it; a second one with CORS on),
// the baseline B (bench/baseline-server.mjs) and the bare Nest app N (bench/nest-server.mjs).
// Their stdout/stderr go to a log file (the service logs one JSON line per request at
// LOG_LEVEL=info, like production); the runner scans the services' afterwards for warnings and
// errors. Every child is remembered so that killAllChildren() can end them on
// exit, Ctrl-C or an error.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { distDir, requireDist } from './db.mjs';
import { cpuSeconds } from './proc.mjs';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const children = new Set();

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// Every variable the service reads (these, plus whatever the compiled environmentDefaults()
// names now): the runner sets them itself so a developer's shell (a
// REDIS_URL, a LOG_LEVEL=debug, …) cannot skew the figures; the service's defaults apply.
const KNOWN_SERVICE_VARIABLES = [
  'PORT', 'DATABASE_URL', 'EMBEDDED_DATA_DIR', 'DB_POOL_SIZE', 'DB_CONNECT_TIMEOUT_MS', 'DB_STATEMENT_TIMEOUT_MS',
  'ADMIN_MASTER_KEY', 'LOG_LEVEL', 'REDIS_URL', 'RATE_LIMIT_REDIS_PREFIX', 'RATE_LIMIT_PUBLIC_PER_MINUTE',
  'RATE_LIMIT_DISPUTE_PER_MINUTE', 'RATE_LIMIT_ADMIN_PER_MINUTE', 'TRUST_PROXY', 'CORS_ORIGINS', 'SHUTDOWN_GRACE_MS',
];

function serviceVariables() {
  const { environmentDefaults } = requireDist('config/environment.js');
  return [...new Set([...KNOWN_SERVICE_VARIABLES, ...Object.keys(environmentDefaults())])];
}

function cleanEnv(extra) {
  const env = { ...process.env };
  for (const name of serviceVariables()) delete env[name];
  return { ...env, ...extra };
}

/** The Node both servers run on: the one running the bench (package.json engines: one major everywhere). */
export const SERVER_NODE = process.execPath;

export function serverNodeVersion() {
  return execFileSync(SERVER_NODE, ['--version'], { encoding: 'utf8' }).trim();
}

class ServerProcess {
  constructor(name, child, port, logFile, { readyPath = '/health/ready' } = {}) {
    this.name = name;
    this.child = child;
    this.port = port;
    this.logFile = logFile;
    this.readyPath = readyPath;
    this.url = `http://127.0.0.1:${port}`;
    this.exited = null;
    child.once('exit', (code, signal) => {
      this.exited = { code, signal };
      children.delete(child);
    });
  }

  get pid() {
    return this.child.pid;
  }

  /** Polls GET readyPath until 200; fails at once if the process dies. */
  async waitReady(timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`${this.name} exited during start (${JSON.stringify(this.exited)}):\n${this.logTail()}`);
      try {
        const response = await fetch(`${this.url}${this.readyPath}`, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(150);
    }
    throw new Error(`${this.name} was not ready after ${timeoutMs} ms:\n${this.logTail()}`);
  }

  /** VmHWM (peak resident set) and VmRSS of the process now, in MB; null once it has exited. */
  memory() {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { peakMb: round1(kb('VmHWM') / 1024), rssMb: round1(kb('VmRSS') / 1024) };
    } catch {
      return null;
    }
  }

  /** CPU seconds the process has used so far (every thread); null once it has exited or off Linux. */
  cpuSeconds() {
    return cpuSeconds(this.pid);
  }

  logTail(lines = 25) {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000) {
    if (this.exited) return this.exited;
    this.stopRequestedAt ??= Date.now();
    const exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  }
}

function launch(args, env, logFile) {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(SERVER_NODE, args, { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
    children.add(child);
    return child;
  } finally {
    closeSync(fd);
  }
}

/** The Node flags production starts the service with: those of `npm run start:prod`. */
export function productionNodeFlags() {
  const script = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts['start:prod'];
  return script.split(/\s+/).filter((word) => word.startsWith('--'));
}

/**
 * `node <start:prod's flags> dist/main.js` (from the run's snapshot of dist/) against
 * `databaseUrl`, production settings, rate limits far above the load; `corsOrigins` sets
 * CORS_ORIGINS (otherwise unset: CORS off, the service's default); `dist`, another build of the service; `env`, more variables.
 */
export async function startService({ name = 'service', databaseUrl, poolSize, logLevel, logFile, corsOrigins, dist = distDir(), env: extra = {} }) {
  const port = await freePort();
  const unlimited = '1000000000';
  const env = cleanEnv({
    NODE_ENV: 'production',
    PORT: String(port),
    METRICS_PORT: '0',
    DATABASE_URL: databaseUrl,
    DB_POOL_SIZE: String(poolSize),
    ADMIN_MASTER_KEY: randomBytes(24).toString('base64url'),
    LOG_LEVEL: logLevel,
    RATE_LIMIT_PUBLIC_PER_MINUTE: unlimited,
    RATE_LIMIT_DISPUTE_PER_MINUTE: unlimited,
    RATE_LIMIT_ADMIN_PER_MINUTE: unlimited,
    ...(corsOrigins ? { CORS_ORIGINS: corsOrigins } : {}),
    ...extra,
  });
  const server = new ServerProcess(name, launch([...productionNodeFlags(), join(dist, 'main.js')], env, logFile), port, logFile);
  await server.waitReady();
  return server;
}

export async function startBaseline({ databaseUrl, poolSize, logFile }) {
  const port = await freePort();
  const env = cleanEnv({
    NODE_ENV: 'production', PORT: String(port), DATABASE_URL: databaseUrl, DB_POOL_SIZE: String(poolSize), BENCH_DIST: distDir(),
  });
  const server = new ServerProcess('baseline', launch(['bench/baseline-server.mjs'], env, logFile), port, logFile);
  await server.waitReady();
  return server;
}

/**
 * N (bench/nest-server.mjs), answering `marketItem` (JSON text) in its constant envelope; with
 * `shape` ("m,g,i,p"), N plus that many no-op middlewares, guards, interceptors and pipes. It has
 * one route: readiness is that route answering.
 */
/** The service's pipeline for GET /oracle/markets/public (src/app.module.ts) as nest-server.mjs's PIPELINE_SHAPE:
 * 2 middlewares (the request's observation, EdgeMiddleware), 1 global guard, 1 global interceptor, 1 global pipe. */
export const SERVICE_SHAPE = '2,1,1,1';

export async function startNest({ marketItem, logFile, shape = '0,0,0,0', name = 'nest' }) {
  const port = await freePort();
  const env = cleanEnv({ NODE_ENV: 'production', PORT: String(port), MARKET_ITEM: marketItem, PIPELINE_SHAPE: shape });
  const server = new ServerProcess(name, launch(['bench/nest-server.mjs'], env, logFile), port, logFile, {
    readyPath: '/oracle/markets/public',
  });
  await server.waitReady();
  return server;
}

/** Last resort (process 'exit', signals): SIGKILL whatever is still running. Synchronous. */
export function killAllChildren(signal = 'SIGKILL') {
  for (const child of children) {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * Counts the service log's lines by pino level and keeps its warn/error lines (up to keepMax;
 * a few `samples` cut short for the report): a run whose service logged errors (5000s, pool
 * trouble) should say so next to its figures.
 */
export async function summarizeLog(logFile, { keepMax = 2000, stoppedAt = Infinity } = {}) {
  // atShutdown: warn/error lines stamped after the runner asked the process to stop.
  const summary = { lines: 0, warn: 0, error: 0, fatal: 0, atShutdown: 0, samples: [], kept: [] };
  const LEVEL = /"level":(\d+)/;
  const TIME = /"time":(\d+)/;
  try {
    const lines = createInterface({ input: createReadStream(logFile, 'utf8'), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line) continue;
      summary.lines++;
      const level = Number(LEVEL.exec(line)?.[1] ?? (line.startsWith('{') ? 30 : 40));
      if (level < 40) continue;
      if (Number(TIME.exec(line)?.[1] ?? 0) >= stoppedAt) summary.atShutdown++;
      if (level >= 60) summary.fatal++;
      else if (level >= 50) summary.error++;
      else summary.warn++;
      if (summary.samples.length < 5) summary.samples.push(line.slice(0, 400));
      if (summary.kept.length < keepMax) summary.kept.push(line);
    }
  } catch {
    // no log
  }
  return summary;
}

const round1 = (value) => Math.round(value * 10) / 10;
