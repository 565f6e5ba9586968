import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from '../../../src/database/embedded-database';

const REDIS_SERVER = '/usr/bin/redis-server';

/**
 * A Redis server of the suite's own (never the machine's) on a free port, without persistence,
 * which the suite may kill, stall (SIGSTOP) and resume, or start again on the same port.
 */
export class RedisServer {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private stalled = false;

  private constructor(readonly port: number) {}

  static async start(): Promise<RedisServer> {
    const redis = new RedisServer(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again, on the same port) and waits until it answers PING. */
  async restart(): Promise<void> {
    if (this.child) return;
    const child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
      stdio: 'ignore',
    });
    this.child = child;
    this.exited = new Promise((resolveExit) => child.once('exit', () => resolveExit()));
    void this.exited.then(() => {
      if (this.child === child) this.child = null;
    });
    const deadline = performance.now() + 5_000;
    for (;;) {
      try {
        await this.command((client) => client.ping());
        return;
      } catch (error) {
        if (performance.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer within 5 s: ${String(error)}`);
        await sleep(50);
      }
    }
  }

  /** One command on a connection of its own (at most 1 s). */
  async command<T>(run: (client: Redis) => Promise<T>): Promise<T> {
    const client = new Redis(this.url, { lazyConnect: true, connectTimeout: 1_000, commandTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await run(client);
    } finally {
      client.disconnect();
    }
  }

  /** SIGSTOP: connections stay open, nothing is answered. */
  stall(): void {
    this.stalled = true;
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.stalled = false;
    this.child?.kill('SIGCONT');
  }

  /** SIGKILL, and waits for the exit. */
  async kill(): Promise<void> {
    if (this.stalled) this.resume();
    this.child?.kill('SIGKILL');
    await this.exited;
  }
}
