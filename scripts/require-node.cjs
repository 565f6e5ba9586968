// Run (`node scripts/require-node.cjs && ...`) or preloaded (`node -r ./scripts/require-node.cjs`)
// before the scripts that would fail obscurely on another Node: what is wrong and how to fix it, exit 1.
const problem = require('../src/config/node-version.cjs').nodeVersionProblem(__dirname);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
