import { createHash } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartupError } from '../../config/startup-error';

// A Unix socket path must fit in sockaddr_un (108 bytes on Linux, 104 on macOS).
const MAX_SOCKET_PATH = 100;

export class DataFolderInUse extends StartupError {
  constructor(
    readonly dataDir: string,
    readonly holderPid: string,
  ) {
    super(
      `the data folder ${dataDir} is in use by another server (pid ${holderPid}): stop that one first, ` +
        'or give this one its own folder (EMBEDDED_DATA_DIR)',
    );
  }
}

/** A Unix socket, not a lock file: the kernel closes it however the process ends, so a killed server leaves no lock. */
export class DataFolderLock {
  private constructor(private readonly server: Server) {}

  /** Takes the folder's lock, or throws DataFolderInUse naming the live holder. */
  static async acquire(dataDir: string): Promise<DataFolderLock> {
    const path = lockPath(dataDir);
    const server = createServer((socket) => {
      // An asker that left before the answer (EPIPE, ECONNRESET) must not take the server down:
      // the socket closes itself after its error; a listener only keeps the error from being thrown.
      socket.on('error', () => undefined);
      socket.end(`${process.pid}\n`);
    });
    server.unref(); // holding the lock never keeps the process alive on its own
    try {
      await listen(server, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      const holder = await holderOf(path);
      if (holder !== null) throw new DataFolderInUse(dataDir, holder);
      await unlink(path).catch(() => undefined); // the socket of a server that was killed
      await listen(server, path);
    }
    return new DataFolderLock(server);
  }

  /** The pid of the live process holding `dataDir`, or null when none does. */
  static holder(dataDir: string): Promise<string | null> {
    return holderOf(lockPath(dataDir));
  }

  /** Gives the folder up (closing the server also removes its socket file). */
  release(): Promise<void> {
    return new Promise((done) => this.server.close(() => done()));
  }
}

/** In the data folder when the path fits, else in the temp folder under a name derived from it. */
function lockPath(dataDir: string): string {
  const inFolder = join(dataDir, '.server.lock');
  if (Buffer.byteLength(inFolder) <= MAX_SOCKET_PATH) return inFolder;
  return join(tmpdir(), `settlement-oracle-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}.lock`);
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => {
      server.off('error', fail);
      done();
    });
  });
}

/** Asks whoever listens on `path` for its pid: null when nobody does (a stale socket file, or none). */
function holderOf(path: string): Promise<string | null> {
  return new Promise((answer) => {
    const socket = connect(path);
    let reply = '';
    socket.setEncoding('utf8');
    socket.setTimeout(2000, () => socket.destroy());
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('end', () => answer(reply.trim() || 'unknown'));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      answer(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? null : 'unknown'),
    );
    socket.on('close', () => answer(reply.trim() || 'unknown')); // after end or error, a no-op
  });
}
