// Where the cluster keeps things. As root, PostgreSQL and PgBouncer run as the OS user
// `postgres`, who may not reach a checkout under a mode-0700 folder such as /root: their
// folder is then a temporary one that user owns, linked from the cluster folder as run/.
import { execFileSync } from 'node:child_process';
import { chown, lstat, mkdir, mkdtemp, readlink, rm, symlink } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

function postgresUser() {
  try {
    const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { name: 'postgres', uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root, and there is no OS user "postgres" to run PostgreSQL as (it refuses root): useradd --system postgres');
  }
}

/** Makes the cluster folder, its logs/ (emptied) and the run folder; returns them. */
export async function prepareFolders(dir) {
  const logDir = join(dir, 'logs');
  await rm(logDir, { recursive: true, force: true });
  await mkdir(logDir, { recursive: true });
  const runLink = join(dir, 'run');
  await rm(runLink, { recursive: true, force: true });
  if (process.getuid() !== 0) {
    await mkdir(runLink);
    return { logDir, runDir: runLink, runDirIsTemp: false, osUser: null, home: homedir() };
  }
  const osUser = postgresUser();
  const runDir = await mkdtemp(join(tmpdir(), 'oracle-cluster-'));
  await chown(runDir, osUser.uid, osUser.gid);
  await symlink(runDir, runLink);
  return { logDir, runDir, runDirIsTemp: true, osUser, home: homedir() };
}

/**
 * Removes what start made apart from the logs (and haproxy.cfg, for the record). A temporary
 * run folder is found through the run/ link too, should the state file be lost.
 */
export async function removeData(dir, state) {
  const runLink = join(dir, 'run');
  const linked = await lstat(runLink).then((info) => (info.isSymbolicLink() ? readlink(runLink) : null), () => null);
  for (const temporary of new Set([state?.runDirIsTemp ? state.runDir : null, linked])) {
    if (temporary) await rm(temporary, { recursive: true, force: true });
  }
  await rm(runLink, { recursive: true, force: true });
  await rm(join(dir, 'state.json'), { force: true });
}
