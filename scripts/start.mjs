// `npm start`: refuses at once what would fail after the build (the wrong Node, a data folder
// in use), then builds. package.json then execs the server, so that a signal to npm reaches it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataFolderHolder } from './ensure-built.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const stop = (line) => {
  process.stderr.write(`${line}\n`);
  process.exit(1);
};

const problem = require('../src/config/node-version.cjs').nodeVersionProblem(root);
if (problem) stop(problem);

// Zero-setup mode: a server already on the data folder is found by the last build's own lock check.
if (!process.env.DATABASE_URL) {
  const holder = await dataFolderHolder(root);
  if (holder !== null) {
    stop(`a server is already running on the data folder ${process.env.EMBEDDED_DATA_DIR || './data'} (pid ${holder}): stop it first, or give this one its own folder (EMBEDDED_DATA_DIR)`);
  }
}

const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
