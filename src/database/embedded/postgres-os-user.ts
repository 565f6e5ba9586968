import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { StartupError } from '../../config/startup-error';

const run = promisify(execFile);

/** An OS account other than this process's, which the embedded PostgreSQL runs as. */
export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

export const POSTGRES_OS_USER = 'postgres';

/** Who the embedded PostgreSQL runs as: null (this process's user), or as root the OS user `postgres`, created if missing. */
export async function postgresOsUser(log: (message: string) => void): Promise<OsUser | null> {
  if (process.getuid?.() !== 0) return null;
  const existing = await lookUp(POSTGRES_OS_USER);
  if (existing) return existing;
  try {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', POSTGRES_OS_USER]);
  } catch (error) {
    throw new StartupError(
      `PostgreSQL cannot run as root and there is no OS user "${POSTGRES_OS_USER}" to run it as ` +
        `(creating one failed: ${(error as Error).message.split('\n')[0]}): create it (useradd --system ${POSTGRES_OS_USER}), ` +
        'run as a non-root user, or set DATABASE_URL',
    );
  }
  log(`created the OS user "${POSTGRES_OS_USER}" to run the embedded PostgreSQL (PostgreSQL does not run as root)`);
  const created = await lookUp(POSTGRES_OS_USER);
  if (!created) throw new StartupError(`the OS user "${POSTGRES_OS_USER}" was created but cannot be found: set DATABASE_URL`);
  return created;
}

async function lookUp(name: string): Promise<OsUser | null> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return null;
  }
}

/** Asked of the kernel as that user, so ACLs and groups count. Needs root. */
export function userCan(user: OsUser, test: '-x' | '-w', path: string): boolean {
  const probe = spawnSync('/bin/sh', ['-c', `test ${test} "$1"`, 'sh', path], { uid: user.uid, gid: user.gid, stdio: 'ignore' });
  return probe.status === 0;
}
