// `npm run build` only when dist/ is older than what it is built from, and never by emptying dist/
// under a zero-setup server running from it: nest-cli.json's deleteOutDir is then set aside, in
// a copy of it. `npm run demo:keys` runs it; so does the local cluster (scripts/cluster/).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** What dist/ is built from. */
const INPUTS = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json'];
/** The server's entry and the back office bundle (built last): a whole build wrote both. */
const OUTPUTS = ['dist/main.js', 'dist/back-office/assets/app.js'];
/** Inside the project, as `nest build -c` takes a path relative to it. */
const KEEP_DIST_CONFIG = 'node_modules/.cache/settlement-oracle/nest-cli.keep-dist.json';

function newestMtime(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** Whether dist/ holds a whole build made after every change to its inputs. */
export function distIsCurrent(root = ROOT) {
  const outputs = OUTPUTS.map((path) => join(root, path));
  if (!outputs.every((path) => existsSync(path))) return false;
  const builtAt = Math.min(...outputs.map((path) => statSync(path).mtimeMs));
  return INPUTS.map((path) => join(root, path)).every((path) => !existsSync(path) || newestMtime(path) <= builtAt);
}

/** The pid of the zero-setup server holding the data folder (EMBEDDED_DATA_DIR, else ./data), found by the last build's own lock; null when none. */
export async function dataFolderHolder(root = ROOT) {
  const lock = join(root, 'dist/database/embedded/data-folder-lock.js');
  if (!existsSync(lock)) return null;
  return require(lock).DataFolderLock.holder(process.env.EMBEDDED_DATA_DIR || './data');
}

/** package.json's build script, its `nest build` told to keep dist/ (a copy of nest-cli.json without deleteOutDir). */
function buildKeepingDist(root) {
  const config = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8'));
  config.compilerOptions = { ...config.compilerOptions, deleteOutDir: false };
  mkdirSync(dirname(join(root, KEEP_DIST_CONFIG)), { recursive: true });
  writeFileSync(join(root, KEEP_DIST_CONFIG), JSON.stringify(config, null, 2));
  const script = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.build;
  if (!/^nest build /.test(script)) throw new Error(`package.json's build script does not start with "nest build": ${script}`);
  const env = { ...process.env, PATH: [join(root, 'node_modules', '.bin'), process.env.PATH].join(delimiter) };
  return spawnSync(script.replace(/^nest build /, `nest build -c ${KEEP_DIST_CONFIG} `), { cwd: root, env, shell: true, stdio: 'inherit' });
}

/** Builds unless dist/ is current; throws when the build fails. */
export async function ensureBuilt(root = ROOT) {
  if (distIsCurrent(root)) return;
  const holder = await dataFolderHolder(root);
  let build;
  if (holder === null) {
    console.log('dist/ is missing or older than its sources: npm run build');
    const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
    build = spawnSync(npm[0], [...npm[1], 'run', 'build'], { cwd: root, stdio: 'inherit' });
  } else {
    console.log(`dist/ is older than its sources: building over it, without emptying it under the server running from it (pid ${holder})`);
    build = buildKeepingDist(root);
  }
  if (build.status !== 0) throw new Error('npm run build failed');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problem = require('../src/config/node-version.cjs').nodeVersionProblem(ROOT);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  await ensureBuilt().catch((error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
