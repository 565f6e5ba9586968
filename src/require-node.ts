// Imported first by main.ts: on a Node other than package.json's, what is wrong and how to fix it, and exit 1, before
// any module that needs that Node loads.
import { nodeVersionProblem } from './config/node-version.cjs';

const problem = nodeVersionProblem(__dirname);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
