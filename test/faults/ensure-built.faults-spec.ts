import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataFolderLock } from '../../src/database/embedded/data-folder-lock';
// @ts-expect-error: a script of the repository, without types
import { distIsCurrent, ensureBuilt } from '../../scripts/ensure-built.mjs';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = join(process.env.FAULTS_SERVER_DIR ?? join(REPO_ROOT, 'dist'));

/** A `nest` that records how it was called and whether its config empties dist/, then builds as a whole build does. */
const FAKE_NEST = `#!/usr/bin/env node
const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const args = process.argv.slice(2);
const config = JSON.parse(readFileSync(args.includes('-c') ? args[args.indexOf('-c') + 1] : 'nest-cli.json', 'utf8'));
if (config.compilerOptions.deleteOutDir) rmSync('dist', { recursive: true, force: true });
writeFileSync('nest-calls.jsonl', JSON.stringify({ args, keptDist: existsSync('dist/kept.js') }) + '\\n', { flag: 'a' });
mkdirSync('dist/back-office/assets', { recursive: true });
writeFileSync('dist/main.js', '');
`;

/**
 * `npm run demo:keys` builds through scripts/ensure-built.mjs: nothing when dist/ is current, and
 * never by emptying dist/ under a zero-setup server that runs from it. On a project of its own
 * whose `nest` is a stand-in (a real build takes a minute).
 */
describe('faults: npm run demo:keys builds only what it must (scripts/ensure-built.mjs)', () => {
  let root: string;
  let dataDir: string;
  const at = (path: string) => join(root, path);
  const write = (path: string, text = '') => (mkdirSync(dirname(at(path)), { recursive: true }), writeFileSync(at(path), text));
  const age = (path: string, secondsAgo: number) => utimesSync(at(path), new Date(Date.now() - secondsAgo * 1000), new Date(Date.now() - secondsAgo * 1000));
  /** The last build's lock check, by which a server on the data folder is found (a real build writes it). */
  const builtLockCheck = () => {
    for (const file of ['database/embedded/data-folder-lock.js', 'config/startup-error.js']) cpSync(join(BUILT, file), at(`dist/${file}`));
  };
  const nestCalls = () => (existsSync(at('nest-calls.jsonl')) ? readFileSync(at('nest-calls.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line)) : []);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'oracle-test-'));
    dataDir = join(root, 'data');
    mkdirSync(dataDir);
    write('package.json', JSON.stringify({ scripts: { build: 'nest build -p tsconfig.build.json && node -e "require(\'fs\').writeFileSync(\'dist/back-office/assets/app.js\', \'\')"' } }));
    write('nest-cli.json', JSON.stringify({ sourceRoot: 'src', compilerOptions: { deleteOutDir: true, plugins: [] } }));
    write('node_modules/.bin/nest', FAKE_NEST);
    chmodSync(at('node_modules/.bin/nest'), 0o755);
    process.env.EMBEDDED_DATA_DIR = dataDir;
  });

  afterAll(async () => {
    delete process.env.EMBEDDED_DATA_DIR;
    await rm(root, { recursive: true, force: true });
  });

  it("calls dist/ current only when both of a whole build's outputs are newer than every source", () => {
    for (const path of ['src/main.ts', 'src/back-office/client/app.ts', 'dist/main.js', 'dist/back-office/assets/app.js']) write(path);
    for (const [path, secondsAgo] of [['src/main.ts', 60], ['src/back-office/client/app.ts', 60], ['nest-cli.json', 60], ['package.json', 60], ['dist/main.js', 10]] as const) age(path, secondsAgo);
    age('dist/back-office/assets/app.js', 10);
    expect(distIsCurrent(root)).toBe(true);
    age('dist/back-office/assets/app.js', 120);
    expect(distIsCurrent(root)).toBe(false);
    age('dist/back-office/assets/app.js', 10);
    age('src/back-office/client/app.ts', 5);
    expect(distIsCurrent(root)).toBe(false);
    age('src/back-office/client/app.ts', 60);
    age('nest-cli.json', 5);
    expect(distIsCurrent(root)).toBe(false);
    age('nest-cli.json', 60);
    expect(distIsCurrent(root)).toBe(true);
  });

  it('builds nothing when dist/ is current', async () => {
    await ensureBuilt(root);
    expect(nestCalls()).toEqual([]);
  });

  it('builds as npm run build does, emptying dist/, when no server runs from it; over it, keeping it whole, while one does', async () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      builtLockCheck();
      write('dist/kept.js');
      write('src/main.ts');
      await ensureBuilt(root);
      expect(nestCalls()).toEqual([{ args: ['build', '-p', 'tsconfig.build.json'], keptDist: false }]);
      expect(distIsCurrent(root)).toBe(true);

      builtLockCheck();
      const lock = await DataFolderLock.acquire(dataDir);
      try {
        write('dist/kept.js');
        write('src/main.ts');
        await ensureBuilt(root);
      } finally {
        await lock.release();
      }
      expect(nestCalls()[1]).toEqual({ args: ['build', '-c', 'node_modules/.cache/settlement-oracle/nest-cli.keep-dist.json', '-p', 'tsconfig.build.json'], keptDist: true });
      expect(existsSync(at('dist/kept.js'))).toBe(true);
      expect(distIsCurrent(root)).toBe(true);
      expect(log.mock.calls.map(([line]) => line)).toEqual([
        'dist/ is missing or older than its sources: npm run build',
        `dist/ is older than its sources: building over it, without emptying it under the server running from it (pid ${process.pid})`,
      ]);
    } finally {
      log.mockRestore();
    }
  });
});
