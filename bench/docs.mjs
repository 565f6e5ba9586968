// bench/docs.mjs: where a run is recorded. bench/results/<id>.json (+ latest.json) always; with
// docs on, its section (report.mjs formatMarkdown) goes at the top of docs/benchmarks.md's
// runs, newest first, and nothing recorded is ever dropped.
//
// The first run of this bench finds the file as the previous bench left it (its description,
// its analysis, its runs, between <!-- bench:runs:start/end -->): that content is kept
// byte for byte below a horizontal rule and a note saying what it was measured with, and this
// bench's runs go above it, between the markers below.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { formatMarkdown } from './report.mjs';

const START = '<!-- bench:current:start -->';
const END = '<!-- bench:current:end -->';
const RUN_MARK = '<!-- bench:current:run ';

const INTRO = `## Runs of \`npm run bench\`

What one run measures, in what order and how: [\`bench/README.md\`](../bench/README.md). Newest
first, each as the runner recorded it, every target met or not.
`;

const OLDER_NOTE = `**Everything below this line was recorded by the previous bench**: it compared the service with
B only, on the hot key set alone, without N, a CORS load or CPU per request, and the service
then answered its two partner routes on fast paths ahead of Express (removed since). Kept as it
was written.`;

/** Prepends this run's section to docs/benchmarks.md (creating the file or its runs part). */
export async function writeDocs(path, run) {
  let text = existsSync(path) ? await readFile(path, 'utf8') : '# Benchmarks\n';
  if (!text.includes(START) || !text.includes(END)) {
    const titleEnd = text.startsWith('# ') ? text.indexOf('\n') + 1 : 0;
    const title = titleEnd > 0 ? text.slice(0, titleEnd) : '# Benchmarks\n';
    const older = text.slice(titleEnd).replace(/^\n+/, '');
    text = `${title}\n${START}\n${INTRO}\n${END}\n${older.trim() ? `\n---\n\n${OLDER_NOTE}\n\n${older}` : ''}`;
  }
  const end = text.indexOf(END);
  const firstRun = text.indexOf(RUN_MARK, text.indexOf(START));
  const at = firstRun >= 0 && firstRun < end ? firstRun : end;
  const section = `${RUN_MARK}${run.id} -->\n${formatMarkdown(run)}\n`;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text.slice(0, at) + section + text.slice(at));
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
