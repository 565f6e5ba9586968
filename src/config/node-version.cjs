// The Node version package.json's engines names, checked before anything else loads: by
// main.ts (copied into dist/ as an asset) and by `npm start` (scripts/start.mjs), before it builds.
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

/** The README's ways to get Node `major` and keep it on PATH in shells opened later: lines to paste. */
function howToGet(major, host) {
  const node = `node-${host.platform === 'win32' ? 'win' : host.platform}-${host.arch}`;
  const profile = /zsh$/.test(host.shell ?? '') ? '~/.zshrc' : '~/.bashrc';
  const path = `export PATH=~/node${major}/node_modules/${node}/bin:$PATH`;
  return [
    `Install it, and keep it on PATH in new shells too, with nvm:`,
    `    nvm install ${major} && nvm alias default ${major}`,
    'or from the npm registry:',
    `    npm install --prefix ~/node${major} ${node}@${major}`,
    `    echo '${path}' >> ${profile}`,
    `    ${path}`,
  ].join('\n');
}

/**
 * Why this Node cannot run the service, with how to get the right one (README, Prerequisites), or
 * null. `from`: a folder in or under the project's.
 */
function nodeVersionProblem(from, version = process.versions.node, host = { platform: process.platform, arch: process.arch, shell: process.env.SHELL }) {
  let folder = from;
  while (!existsSync(join(folder, 'package.json')) && dirname(folder) !== folder) folder = dirname(folder);
  const file = join(folder, 'package.json');
  const range = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).engines?.node ?? '') : '';
  const wanted = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!wanted) return null;
  const [major, minor, patch] = version.split('.').map(Number);
  const [wantedMajor, wantedMinor, wantedPatch] = wanted.slice(1).map(Number);
  if (major === wantedMajor && (minor > wantedMinor || (minor === wantedMinor && patch >= wantedPatch))) return null;
  return (
    `this is Node ${version}; the service runs on Node ${wantedMajor} (${wantedMajor}.${wantedMinor}.${wantedPatch} or later, package.json engines).\n` +
    howToGet(wantedMajor, host)
  );
}

module.exports = { nodeVersionProblem };
