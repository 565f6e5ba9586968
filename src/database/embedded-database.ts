import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { StartupError } from '../config/startup-error';
import { DataFolderLock } from './embedded/data-folder-lock';
import { postgresBinaries } from './embedded/postgres-binaries';
import { type OsUser, postgresOsUser, userCan } from './embedded/postgres-os-user';
import { canEnterClusterFolder, type ClusterFolder, initdb, PostgresProcess, stopLeftover } from './embedded/postgres-process';

export { isAlive } from './embedded/postgres-process';

export interface EmbeddedDatabaseOptions {
  /** Folder that holds the cluster (created if missing). */
  dataDir: string;
  /** Port to listen on; a free one is picked when omitted. */
  port?: number;
  /** What is worth telling whoever started the server (recoveries, one-time setup). */
  onInfo?: (message: string) => void;
  /** PostgreSQL's own output, line by line. */
  onDebug?: (message: string) => void;
}

/** The zero-setup database. As root it runs as OS user `postgres` (PostgreSQL refuses root); one server per data folder (DataFolderLock). */
export class EmbeddedDatabase {
  private constructor(
    private readonly server: PostgresProcess,
    private readonly lock: DataFolderLock,
    readonly url: string,
    readonly clusterDir: string,
  ) {}

  static async start(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
    const dataDir = resolve(options.dataDir);
    const onInfo = options.onInfo ?? (() => undefined);
    await createFolder(dataDir);
    const lock = await DataFolderLock.acquire(dataDir);
    try {
      const runAs = await postgresOsUser(onInfo);
      const binaries = await postgresBinaries(runAs, onInfo);
      const cluster = clusterFolder(dataDir, runAs);
      const passwordFile = join(dataDir, 'postgres.password');
      let password: string;
      if (EmbeddedDatabase.hasCluster(dataDir)) {
        password = await readPassword(passwordFile);
        const leftover = await stopLeftover(cluster.path);
        if (leftover !== null) onInfo(`recovered the data folder: stopped the embedded PostgreSQL (pid ${leftover}) left running by a server that was killed`);
      } else {
        password = randomBytes(18).toString('base64url');
        await createCluster(binaries.initdb, dataDir, cluster, password, runAs);
        await writeFile(passwordFile, password, { mode: 0o600 });
      }
      const port = options.port ?? (await freePort());
      const server = await PostgresProcess.start(binaries.postgres, cluster, port, runAs, options.onDebug ?? (() => undefined));
      const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
      return new EmbeddedDatabase(server, lock, url, cluster.path);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Whether `dataDir` holds a cluster (a server started on it once). */
  static hasCluster(dataDir: string): boolean {
    return existsSync(join(clusterDirOf(dataDir), 'PG_VERSION'));
  }

  /** The URL of the embedded PostgreSQL a live server runs on `dataDir` (for npm run demo:keys), or null. */
  static async runningOn(dataDir: string): Promise<string | null> {
    const folder = resolve(dataDir);
    if ((await DataFolderLock.holder(folder)) === null) return null;
    const pidFile = (await readFile(join(clusterDirOf(folder), 'postmaster.pid'), 'utf8')).split('\n');
    const password = await readPassword(join(folder, 'postgres.password'));
    return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pidFile[3].trim()}/postgres`;
  }

  /** Calls `listener` if the server ends without stop() (killed, crashed), with how it ended. */
  onUnexpectedExit(listener: (how: string) => void): void {
    this.server.onUnexpectedExit(listener);
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.lock.release();
  }
}

const clusterDirOf = (dataDir: string): string => join(resolve(dataDir), 'postgres');

async function createFolder(dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o755 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError(
      `cannot create the data folder ${dataDir} (${code ?? (error as Error).message}): ` +
        'make it writable (in a container: mount a volume there), point EMBEDDED_DATA_DIR at a writable folder, or set DATABASE_URL',
    );
  }
}

/** initdb as `runAs`, in a cluster folder it owns; the password reaches it through a file only it reads. */
async function createCluster(program: string, dataDir: string, cluster: ClusterFolder, password: string, runAs: OsUser | null): Promise<void> {
  await rm(cluster.path, { recursive: true, force: true }); // what a failed first start left
  await mkdir(cluster.path, { mode: 0o700 });
  const passwordPath = join(dataDir, `.initdb-password-${randomBytes(6).toString('hex')}`);
  await writeFile(passwordPath, `${password}\n`, { mode: 0o600 });
  const passwordFile = await open(passwordPath, 'r');
  try {
    if (runAs) {
      await chown(cluster.path, runAs.uid, runAs.gid);
      await passwordFile.chown(runAs.uid, runAs.gid);
    }
    await initdb(program, cluster, passwordFile.fd, runAs);
  } finally {
    await passwordFile.close();
    await rm(passwordPath, { force: true });
  }
}

/** Root's `postgres` user may not traverse the data folder's parents (e.g. under /root): PostgreSQL then starts inside the cluster folder, permissions left as they are. */
function clusterFolder(dataDir: string, runAs: OsUser | null): ClusterFolder {
  const entered = runAs !== null && !userCan(runAs, '-x', dataDir);
  if (entered && !canEnterClusterFolder()) throw unreachable(dataDir, runAs);
  return { path: clusterDirOf(dataDir), entered };
}

function unreachable(dataDir: string, runAs: OsUser): StartupError {
  return new StartupError(
    `the embedded PostgreSQL runs as the OS user "${runAs.name}" (PostgreSQL refuses root), which cannot reach ${dataDir} ` +
      '(a parent folder is closed to other users): point EMBEDDED_DATA_DIR at a folder it can reach (e.g. /var/lib/settlement-oracle), ' +
      'run as a non-root user, or set DATABASE_URL',
  );
}

async function readPassword(passwordFile: string): Promise<string> {
  try {
    return (await readFile(passwordFile, 'utf8')).trim();
  } catch {
    throw new StartupError(`${passwordFile} is missing, so the embedded database cannot be opened: delete the data folder to start over`);
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
