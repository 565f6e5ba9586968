// bench/history.mjs: `npm run bench:history`, the recorded runs of `npm run bench` as a table,
// oldest first, from bench/results/bench.jsonl (one JSON line per run, report.mjs historyRecord).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const HELP = `usage: npm run bench:history [-- --last N] [--file PATH]

  --last N      only the N most recent runs
  --file PATH   another history file [bench/results/bench.jsonl]

Figures at 50 connections (the targets' level): the service's hot read against N and B (req/s,
p99), "shape/N": N with the service's shape of no-op layers against N (the framework alone; runs
since 2026-11-28), the service's cold read against B, disputes/s, the service's peak RSS, the hot read with
CORS_ORIGINS against without; "met": targets met of those the run evaluated. bench 1 is the
previous bench (the service against B only, hot keys only). "*" marks a machine not idle at the
start, "q" a --quick run.
`;

function parseArguments(argv) {
  const options = { last: Infinity, file: join(fileURLToPath(new URL('.', import.meta.url)), 'results', 'bench.jsonl') };
  for (let i = 0; i < argv.length; i++) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (name === '--help' || name === '-h') {
      process.stdout.write(HELP);
      process.exit(0);
    } else if (name === '--last' && /^\d+$/.test(value ?? '')) {
      options.last = Number(value);
      i++;
    } else if (name === '--file' && value) {
      options.file = value;
      i++;
    } else {
      process.stderr.write(`${name === '--last' || name === '--file' ? `${name} needs a value` : `unexpected argument: ${name}`}\n\n${HELP}`);
      process.exit(2);
    }
  }
  return options;
}

/** "Xeon 6/207" from the machine line: the CPU's make, family and model. */
function host(machine) {
  const name = /Xeon|EPYC|Core|Ryzen|Neoverse/.exec(machine)?.[0] ?? machine.split(/[ (,]/)[0];
  const model = /family (\d+), model (\d+)/.exec(machine);
  return model ? `${name} ${model[1]}/${model[2]}` : name;
}

const ratio = (value) => (value == null ? '–' : `${value.toFixed(2)}×`);
const figure = (value, digits = 0) => (value == null ? '–' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));

function row(record) {
  const at50 = record.ratios['50'] ?? {};
  const disputes = record.disputes.find((d) => d.connections === 50);
  const marks = `${record.notIdle ? '*' : ''}${record.quick ? 'q' : ''}`;
  return [
    `${record.startedAt.replace(/:\d\d UTC$/, '')}${marks ? ` ${marks}` : ''}`,
    String(record.bench),
    host(record.machine),
    ratio(at50.serviceVsNHot),
    ratio(at50.shapeVsNHot),
    ratio(at50.serviceVsBHot),
    ratio(at50.p99VsBHot),
    ratio(at50.serviceVsBCold),
    figure(disputes?.reqPerSec),
    figure(record.peakRssMb.service, 1),
    ratio(at50.corsVsWithout),
    `${record.targets.filter((t) => t.met).length}/${record.targets.length}`,
  ];
}

const HEADER = ['date (UTC)', 'bench', 'host', 'hot/N', 'shape/N', 'hot/B', 'p99/B', 'cold/B', 'disputes/s', 'RSS MB', 'CORS', 'met'];

function main() {
  const options = parseArguments(process.argv.slice(2));
  const lines = readFileSync(options.file, 'utf8').split('\n').filter((line) => line.trim());
  const records = lines.map((line, i) => {
    try {
      return JSON.parse(line);
    } catch (error) {
      throw new Error(`${options.file}:${i + 1}: ${error.message}`);
    }
  });
  const shown = records.slice(Math.max(0, records.length - options.last)).map(row);
  const widths = HEADER.map((name, i) => Math.max(name.length, ...shown.map((cells) => cells[i].length)));
  // The first three columns are text (left-aligned), the figures right-aligned.
  const format = (cells) => cells.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd();
  process.stdout.write(`${[format(HEADER), ...shown.map(format)].join('\n')}\n`);
  process.stdout.write(`${shown.length} of ${records.length} runs (${relative(process.cwd(), options.file)})\n`);
}

main();
