// The Node version package.json's engines names, checked before anything else loads: by
// main.ts (copied into dist/ as an asset) and by `npm start` (scripts/start.mjs), before it builds.
const { existsSync, readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

/** Why this Node cannot run the service (one line), or null. `from`: a folder in or under the project's. */
function nodeVersionProblem(from, version = process.versions.node) {
  let folder = from;
  while (!existsSync(join(folder, 'package.json')) && dirname(folder) !== folder) folder = dirname(folder);
  const file = join(folder, 'package.json');
  const range = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).engines?.node ?? '') : '';
  const wanted = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!wanted) return null;
  const [major, minor, patch] = version.split('.').map(Number);
  const [wantedMajor, wantedMinor, wantedPatch] = wanted.slice(1).map(Number);
  if (major === wantedMajor && (minor > wantedMinor || (minor === wantedMinor && patch >= wantedPatch))) return null;
  return `this is Node ${version}; the service runs on Node ${wantedMajor} (${wantedMajor}.${wantedMinor}.${wantedPatch} or later, package.json engines): install Node ${wantedMajor}`;
}

module.exports = { nodeVersionProblem };
