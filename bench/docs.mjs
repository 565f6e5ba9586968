// bench/docs.mjs: where a run is recorded. bench/results/<id>.json (+ latest.json, git-ignored)
// always; with docs on, its line appended to bench/results/bench.jsonl (committed: the history,
// `npm run bench:history`) and its section (report.mjs formatMarkdown) in docs/benchmarks.md,
// in place of the previous latest run's, between the markers below.
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { formatMarkdown, historyRecord } from './report.mjs';

const START = '<!-- bench:latest:start -->';
const END = '<!-- bench:latest:end -->';

/** Replaces the latest run's section of docs/benchmarks.md (adding the markers at the end if absent). */
export async function writeDocs(path, run) {
  let text = existsSync(path) ? await readFile(path, 'utf8') : '# Benchmarks\n';
  if (!text.includes(START) || !text.includes(END)) text = `${text.trimEnd()}\n\n## Latest run\n\n${START}\n${END}\n`;
  const start = text.indexOf(START) + START.length;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${text.slice(0, start)}\n${formatMarkdown(run)}${text.slice(text.indexOf(END, start))}`);
}

/** Appends the run's line to the history (bench/results/bench.jsonl). */
export async function appendHistory(path, run) {
  await mkdir(dirname(path), { recursive: true });
  await appendFile(path, `${JSON.stringify(historyRecord(run))}\n`);
}

/** bench/results/<id>.json and bench/results/latest.json. */
export async function writeResults(dir, run) {
  await mkdir(dir, { recursive: true });
  const json = `${JSON.stringify(run, null, 2)}\n`;
  const file = join(dir, `${run.id}.json`);
  await writeFile(file, json);
  await writeFile(join(dir, 'latest.json'), json);
  return file;
}
