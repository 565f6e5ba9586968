import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../src/database/embedded-database';
import { HttpClient } from './http-client';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The built server: the run's private copy of dist/ (see global-setup.ts), else dist/ itself. */
function serverMain(): string {
  return join(process.env.FAULTS_SERVER_DIR ?? join(REPO_ROOT, 'dist'), 'main.js');
}
const OUTPUT_LINES_KEPT = 100;

/** The master key every fault-suite server gets (≥ 24 characters). */
export const ADMIN_MASTER_KEY = `faults-master-${randomBytes(18).toString('hex')}`;

/**
 * The Node flags production starts the server with: those of `npm run start:prod` (the
 * Dockerfile's CMD repeats them). The server runs on the Node running this suite, which is the
 * one Node the project names (package.json engines).
 */
export function productionNodeFlags(): string[] {
  const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  return scripts['start:prod'].split(/\s+/).filter((word) => word.startsWith('--'));
}

export interface ServerOptions {
  /** null: the zero-setup mode, no DATABASE_URL (its data folder: EMBEDDED_DATA_DIR in `env`). */
  databaseUrl: string | null;
  /** Shown in failure messages. */
  name?: string;
  env?: Record<string, string>;
  /** What start() waits for: readiness (the default), or only liveness (an instance on a standby is not ready). */
  waitFor?: 'ready' | 'live';
  /** How long it may take to answer ready (30 s; a first zero-setup start creates its database). */
  readyTimeoutMs?: number;
}

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/**
 * The real built server (`node dist/main.js`) as a child process, configured only through its
 * environment, as production runs it. Its output is kept for failure messages.
 */
export class ServerProcess {
  readonly http: HttpClient;
  /** Its metrics listener (METRICS_PORT). */
  readonly metricsHttp: HttpClient;
  readonly exited: Promise<ServerExit>;
  exit: ServerExit | null = null;
  private readonly output: string[] = [];
  /** Every line the server wrote, stdout and stderr. */
  readonly lines: string[] = [];
  private readonly notable: string[] = [];

  private constructor(
    readonly name: string,
    readonly port: number,
    readonly child: ChildProcess,
    readonly metricsPort: number,
  ) {
    this.http = new HttpClient(`http://127.0.0.1:${port}`);
    this.metricsHttp = new HttpClient(`http://127.0.0.1:${metricsPort}`);
    this.exited = new Promise((resolveExit) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal, at: performance.now() };
        this.record(`[${name} exited: code ${code}, signal ${signal}]`);
        resolveExit(this.exit);
      });
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) if (line.trim()) this.record(line);
      });
    }
  }

  /** Spawns the server and waits until /health/ready answers 200. */
  static async start(options: ServerOptions): Promise<ServerProcess> {
    const port = await freePort();
    const metricsPort = Number(options.env?.METRICS_PORT ?? (await freePort()));
    const child = spawn(process.execPath, [...productionNodeFlags(), serverMain()], {
      cwd: REPO_ROOT,
      // Only what the server needs: nothing of the test process's own environment leaks in.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        ...(options.databaseUrl === null ? {} : { DATABASE_URL: options.databaseUrl }),
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        ADMIN_MASTER_KEY,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PUBLIC_PER_MINUTE: '10000000',
        RATE_LIMIT_DISPUTE_PER_MINUTE: '10000000',
        RATE_LIMIT_ADMIN_PER_MINUTE: '10000000',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new ServerProcess(options.name ?? `server:${port}`, port, child, metricsPort);
    // Not left running when it never gets ready.
    await server.waitReady(options.readyTimeoutMs ?? 30_000, options.waitFor === 'live' ? '/health/live' : '/health/ready').catch(async (error: unknown) => {
      await server.stop();
      throw error;
    });
    return server;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exit === null;
  }

  /** Polls `probe` (/health/ready) until it answers 200; fails with the server's output otherwise. */
  async waitReady(timeoutMs: number, probe = '/health/ready'): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (this.exit) throw new Error(`${this.name} exited before it was ready\n${this.logs()}`);
      const ready = await this.http.request('GET', probe, { timeoutMs: 2_000 });
      if (ready.status === 200) return;
      await sleep(100);
    }
    throw new Error(`${this.name} was not ready within ${timeoutMs} ms\n${this.logs()}`);
  }

  /**
   * Waits until `count` lines satisfying `match` have been written (log lines go out in batches,
   * within the logger's flush interval), and returns them; fails after `timeoutMs`.
   */
  async linesMatching(match: (line: string) => boolean, count = 1, timeoutMs = 3_000): Promise<string[]> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.lines.filter(match);
      if (found.length >= count) return found;
      if (performance.now() > deadline) throw new Error(`${this.name} wrote ${found.length} of ${count} expected lines\n${this.logs()}`);
      await sleep(50);
    }
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  /** SIGKILLs the server if it still runs and waits for its exit. */
  async stop(): Promise<void> {
    this.http.close();
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Resolves to the exit, or null if the process still runs after timeoutMs. */
  async waitExit(timeoutMs: number): Promise<ServerExit | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolveTimeout) => {
      timer = setTimeout(() => resolveTimeout(null), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The server's output for failure messages: its last lines other than request logs, then its last request logs. */
  logs(): string {
    return [
      `--- ${this.name}: last ${this.notable.length} lines other than request logs ---`,
      ...this.notable,
      `--- ${this.name}: last ${this.output.length} lines ---`,
      ...this.output,
      '--- end ---',
    ].join('\n');
  }

  private record(line: string): void {
    this.lines.push(line);
    keepLast(this.output, line, OUTPUT_LINES_KEPT);
    // pino-http's one line per request carries responseTime; anything else is worth keeping longer.
    if (!line.includes('"responseTime":')) keepLast(this.notable, line, OUTPUT_LINES_KEPT);
  }
}

function keepLast(lines: string[], line: string, max: number): void {
  lines.push(line);
  if (lines.length > max) lines.shift();
}
