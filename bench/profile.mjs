// bench/profile.mjs: `npm run bench:profile`: what each layer of the request pipeline costs, in µs
// of CPU per request, for a cached public read and a dispute submission.
//
// For each scenario: the built service (`node <start:prod's flags> dist/main.js`, production
// settings, LOG_LEVEL=info) on a seeded database, a warm-up, then two measured loads of the
// same length: one plain (the process's CPU time from /proc/<pid>/stat over the requests
// answered: µs/request, and its user and system parts), one with V8's sampling profiler running
// (started and stopped over the inspector protocol, so startup and warm-up are not in it). Each
// profile sample is charged to the innermost frame that belongs to a package or to the service's
// own code (node's internals called by a package are that package's cost); the layers' shares of
// the samples, times the plain run's µs/request, are the table. Flags: --seconds N (default 8),
// --connections N (default 20), --scenario read|cold|dispute|all, --top N (the N functions with
// the most self time), --target nest (profile N, the bench's bare Nest server, instead: what the
// framework costs; --shape m,g,i,p adds bench:shape's no-op layers to it), --callers NAME (the stacks that end in that function), --allocations (a
// third load under V8's sampling heap profiler: the bytes each request allocates, by layer),
// --promoted (the same, leaving out what a scavenge collected: what was promoted or was still alive).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyMigrations, distDir, provisionDatabase, requireDist } from './db.mjs';
import { seed } from './seed.mjs';
import { freePort, productionNodeFlags, ROOT } from './servers.mjs';
import pg from 'pg';

const args = process.argv.slice(2);
const flag = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const SECONDS = Number(flag('--seconds', '8'));
const CONNECTIONS = Number(flag('--connections', '20'));
const SCENARIOS = flag('--scenario', 'all');
const TOP = Number(flag('--top', '0'));
const TARGET = flag('--target', 'service');
const SHAPE = flag('--shape', '0,0,0,0');
const CALLERS = flag('--callers', '');
const PROMOTED = args.includes('--promoted');
const ALLOCATIONS = args.includes('--allocations') || PROMOTED;
const log = (line) => process.stderr.write(`[profile] ${line}\n`);

// Innermost match wins; the order only matters for paths two patterns could both match.
const LAYERS = [
  ['logging', /node_modules\/(pino|pino-http|nestjs-pino|sonic-boom|pino-std-serializers|@pinojs|fast-redact|quick-format-unescaped|atomic-sleep|safe-stable-stringify|thread-stream)\//],
  ['security headers', /node_modules\/helmet\//],
  ['rate limit', /node_modules\/@nestjs\/throttler\/|\/rate-limits\//],
  ['validation', /node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\/|\/common\/validation/],
  ['body parsing', /node_modules\/(body-parser|raw-body|iconv-lite|type-is|content-type|bytes|media-typer)\//],
  ['metrics', /node_modules\/(prom-client|tdigest|bintrees)\/|\/observability\/request-metrics/],
  ['CORS', /node_modules\/(cors|vary|object-assign)\//],
  ['Express', /node_modules\/(express|router|path-to-regexp|finalhandler|send|qs|accepts|negotiator|mime-types|mime-db|content-disposition|cookie|etag|fresh|parseurl|proxy-addr|forwarded|ipaddr\.js|range-parser|on-finished|ee-first|statuses|encodeurl|escape-html|depd|debug|ms|setprototypeof|http-errors|toidentifier|side-channel[^/]*|call-bind[^/]*|get-intrinsic|has-symbols|function-bind|hasown|es-errors|gopd|dunder-proto|es-define-property|es-object-atoms|math-intrinsics|object-inspect|once|wrappy)\//],
  ['Nest', /node_modules\/(@nestjs\/(core|common|platform-express)|rxjs|tslib|reflect-metadata|iterare|uid|load-esm|fast-safe-stringify)\//],
  ['database driver', /node_modules\/(pg|pg-pool|pg-protocol|pg-types|pg-connection-string|postgres-[^/]+|pgpass|split2|typeorm)\//],
  ['record cache (lru-cache)', /node_modules\/lru-cache\//],
  ['answer head (on-headers, with Node\'s writeHead under it)', /node_modules\/on-headers\//],
  ['redis', /node_modules\/(ioredis|@ioredis|redis-[^/]+|cluster-key-slot|denque|standard-as-callback)\//],
];

function layerOf(url) {
  if (!url) return null;
  for (const [name, pattern] of LAYERS) if (pattern.test(url)) return name;
  const own = /\/dist\/(.+)\.js$/.exec(url) ?? /\/\.dist-[^/]+\/(.+)\.js$/.exec(url);
  if (own) return `service: ${own[1]}`;
  if (url.includes('node_modules/')) return `other package: ${/node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)[1]}`;
  return null;
}

/** Where code that belongs to no layer is charged: Node's own JavaScript, or V8 and native code. */
const NODE_LAYER = 'Node (HTTP parser, sockets, streams)';
const NATIVE_LAYER = 'V8 / native';

/** A function and where it is, short: `name package/path:line`. */
const placeOf = (frame) =>
  `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/')}:${frame.lineNumber + 1}`;

/**
 * Bytes allocated per request, by layer and by function, from a sampling heap profile that keeps
 * the samples of objects already collected: everything allocated, not only what survived (with
 * --promoted, those a scavenge collected are left out: what was promoted to the old space, or
 * was still alive when the profile was taken).
 */
function allocationsOf(heap, requests) {
  const layers = new Map();
  const functions = new Map();
  const add = (map, key, bytes) => map.set(key, (map.get(key) ?? 0) + bytes);
  const walk = (node, enclosing) => {
    const layer = layerOf(node.callFrame.url) ?? enclosing;
    add(layers, layer ?? (node.callFrame.url.startsWith('node:') ? NODE_LAYER : NATIVE_LAYER), node.selfSize);
    add(functions, placeOf(node.callFrame), node.selfSize);
    for (const child of node.children) walk(child, layer);
  };
  walk(heap.head, null);
  const perRequest = (entries) =>
    [...entries].map(([name, bytes]) => ({ name, bytes: bytes / requests })).sort((a, b) => b.bytes - a.bytes);
  const byLayer = perRequest(layers);
  return { total: byLayer.reduce((sum, { bytes }) => sum + bytes, 0), byLayer, byFunction: perRequest(functions) };
}

/** µs of CPU per layer, from a .cpuprofile and the plain run's total µs/request. */
function attribute(profile, usPerRequest) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const charged = new Map();
  const functions = new Map();
  let counted = 0;
  const cache = new Map();
  for (const id of profile.samples) {
    let layer = cache.get(id);
    if (layer === undefined) {
      const leaf = nodes.get(id).callFrame;
      if (leaf.functionName === '(idle)') layer = '(idle)';
      else if (leaf.functionName === '(garbage collector)') layer = 'garbage collection';
      else {
        layer = null;
        let sawNode = false;
        for (let at = id; at !== undefined && layer === null; at = parent.get(at)) {
          const url = nodes.get(at).callFrame.url;
          layer = layerOf(url);
          if (url.startsWith('node:')) sawNode = true;
        }
        layer ??= sawNode ? NODE_LAYER : NATIVE_LAYER;
      }
      cache.set(id, layer);
    }
    if (layer === '(idle)') continue;
    counted++;
    charged.set(layer, (charged.get(layer) ?? 0) + 1);
    const where = placeOf(nodes.get(id).callFrame);
    functions.set(where, (functions.get(where) ?? 0) + 1);
  }
  // --callers NAME: the stacks (innermost first) that end in a function of that name.
  const stacks = new Map();
  if (CALLERS) {
    for (const id of profile.samples) {
      if (nodes.get(id).callFrame.functionName !== CALLERS) continue;
      const chain = [];
      for (let at = parent.get(id); at !== undefined && chain.length < 8; at = parent.get(at)) {
        const frame = nodes.get(at).callFrame;
        chain.push(`${frame.functionName || '(anonymous)'}@${frame.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/').replace(/^node:/, '')}:${frame.lineNumber + 1}`);
      }
      const key = chain.join(' < ');
      stacks.set(key, (stacks.get(key) ?? 0) + 1);
    }
  }
  const us = (samples) => (samples / counted) * usPerRequest;
  return {
    callers: [...stacks].map(([stack, samples]) => ({ stack, us: us(samples) })).sort((a, b) => b.us - a.us),
    layers: [...charged].map(([layer, samples]) => ({ layer, us: us(samples) })).sort((a, b) => b.us - a.us),
    functions: [...functions].map(([where, samples]) => ({ where, us: us(samples) })).sort((a, b) => b.us - a.us),
  };
}

/** The process's CPU time so far, in clock ticks (1/100 s): in its own code (user) and in the kernel's (system). */
function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

/** The service (or, with --target nest, N: bench/nest-server.mjs answering `marketItem`), inspectable. */
async function startServer(databaseUrl, inspectPort, marketItem) {
  const port = await freePort();
  const common = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production', PORT: String(port) };
  const [script, env, readyPath] = TARGET === 'nest'
    ? ['bench/nest-server.mjs', { ...common, MARKET_ITEM: marketItem, PIPELINE_SHAPE: SHAPE }, '/oracle/markets/public']
    : [`${distDir()}main.js`, {
      ...common, DATABASE_URL: databaseUrl, ADMIN_MASTER_KEY: randomBytes(24).toString('base64url'), LOG_LEVEL: 'info',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000000', RATE_LIMIT_DISPUTE_PER_MINUTE: '1000000000', RATE_LIMIT_ADMIN_PER_MINUTE: '1000000000',
    }, '/health/ready'];
  const child = spawn(process.execPath, [...productionNodeFlags(), `--inspect=127.0.0.1:${inspectPort}`, script], {
    cwd: ROOT, env, stdio: ['ignore', 'ignore', 'ignore'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    const ready = await fetch(`${url}${readyPath}`).then((r) => r.status === 200, () => false);
    if (ready) return { child, url };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the service did not become ready');
}

/** A minimal inspector client: Profiler.start / Profiler.stop over the DevTools protocol. */
async function inspector(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((open, fail) => { socket.onopen = open; socket.onerror = fail; });
  let next = 1;
  const pending = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    pending.get(message.id)?.(message.result);
    pending.delete(message.id);
  };
  const call = (method, params = {}) => new Promise((done) => {
    const id = next++;
    pending.set(id, done);
    socket.send(JSON.stringify({ id, method, params }));
  });
  return { call, close: () => socket.close() };
}

function load(url, requests, seconds) {
  return new Promise((done, fail) => {
    const instance = autocannon({ url, connections: CONNECTIONS, duration: seconds, requests }, (error, result) =>
      error ? fail(error) : done(result));
    instance.on('error', fail);
  });
}

async function profileScenario(name, databaseUrl, requestsFor, marketItem) {
  const inspectPort = await freePort();
  const { child, url } = await startServer(databaseUrl, inspectPort, marketItem);
  try {
    await load(url, requestsFor(), 3); // warm-up: JIT, caches, pool
    const before = cpuTicks(child.pid);
    const plain = await load(url, requestsFor(), SECONDS);
    const after = cpuTicks(child.pid);
    const perRequest = (ticks) => (ticks * 10_000) / plain.requests.total;
    const usPerRequest = perRequest(after.user + after.system - before.user - before.system);
    // The profiler samples by the clock: a thread descheduled inside a system call is charged to
    // that call. The system time measured here is what every system call really took together.
    const split = `user ${perRequest(after.user - before.user).toFixed(0)}, system ${perRequest(after.system - before.system).toFixed(0)}`;
    const codes = plain['2xx'] === plain.requests.total ? '' : ` (non-2xx ${plain.non2xx})`;
    log(`${name}: ${Math.round(plain.requests.average)} req/s, ${usPerRequest.toFixed(0)} µs CPU/request (${split})${codes}`);
    const devtools = await inspector(inspectPort);
    await devtools.call('Profiler.enable');
    await devtools.call('Profiler.setSamplingInterval', { interval: 200 });
    await devtools.call('Profiler.start');
    await load(url, requestsFor(), SECONDS);
    const { profile } = await devtools.call('Profiler.stop');
    let allocations;
    if (ALLOCATIONS) {
      await devtools.call('HeapProfiler.enable');
      await devtools.call('HeapProfiler.startSampling', {
        samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !PROMOTED,
      });
      const sampled = await load(url, requestsFor(), SECONDS);
      allocations = allocationsOf((await devtools.call('HeapProfiler.stopSampling')).profile, sampled.requests.total);
    }
    devtools.close();
    return { name, reqPerSec: Math.round(plain.requests.average), usPerRequest, split, allocations, ...attribute(profile, usPerRequest) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  }
}

async function main() {
  const database = await provisionDatabase({ log });
  try {
    await applyMigrations(database.url);
    const { keys } = await seed(database.url, { markets: 30_000, log });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const hot = (await client.query('SELECT source, slug FROM markets ORDER BY id LIMIT 200')).rows;
    const all = (await client.query('SELECT source, slug FROM markets ORDER BY random()')).rows;
    const [{ item }] = (await client.query(`SELECT ${requireDist('markets/market-item.js').MARKET_ITEM_JSON}::text AS item FROM markets m WHERE m.id = 2`)).rows;
    const resolved = (await client.query(`SELECT id, source FROM markets WHERE status = 'resolved' ORDER BY id`)).rows;
    await client.end();
    let nextHot = 0;
    let nextMarket = 0;
    const readRequests = () => [{ method: 'GET', setupRequest: (r) => {
      const { source, slug } = hot[nextHot++ % hot.length];
      return { ...r, path: `/oracle/markets/public?slug=${encodeURIComponent(slug)}&source=${encodeURIComponent(source)}` };
    } }];
    let nextCold = 0;
    const coldRequests = () => [{ method: 'GET', setupRequest: (r) => {
      const { source, slug } = all[nextCold++ % all.length];
      return { ...r, path: `/oracle/markets/public?slug=${encodeURIComponent(slug)}&source=${encodeURIComponent(source)}` };
    } }];
    const disputeRequests = () => [{ method: 'POST', setupRequest: (r) => {
      const market = resolved[nextMarket++ % resolved.length];
      return { ...r, path: '/oracle/markets/dispute/submit', headers: { 'content-type': 'application/json', 'x-api-key': keys[market.source] },
        body: JSON.stringify({ market_id: Number(market.id), submitter_id: `u-${nextMarket}`, submitter_name: 'Profile User',
          submitter_selection: 'NO', reason_text: 'The official source was corrected after the close.', submitted_at: new Date().toISOString() }) };
    } }];
    const results = [];
    const wanted = (scenario) => SCENARIOS === 'all' || SCENARIOS === scenario;
    if (wanted('read')) results.push(await profileScenario(TARGET === 'nest' ? 'N, bare Nest (constant)' : 'cached public read', database.url, readRequests, item));
    if (wanted('cold') && TARGET !== 'nest') results.push(await profileScenario('uncached public read (uniform over 30k markets)', database.url, coldRequests));
    if (wanted('dispute') && TARGET !== 'nest') results.push(await profileScenario('dispute submission', database.url, disputeRequests));
    for (const result of results) {
      process.stdout.write(`\n${result.name}: ${result.reqPerSec} req/s at c=${CONNECTIONS}, ${result.usPerRequest.toFixed(0)} µs CPU/request (${result.split})\n`);
      process.stdout.write('| layer | µs/request |\n|---|---:|\n');
      for (const { layer, us } of result.layers) if (us >= 1) process.stdout.write(`| ${layer} | ${us.toFixed(0)} |\n`);
      if (CALLERS) {
        process.stdout.write(`\nstacks ending in ${CALLERS} (µs/request):\n`);
        for (const { stack, us } of result.callers.slice(0, 12)) process.stdout.write(`  ${us.toFixed(1).padStart(6)}  ${stack}\n`);
      }
      if (TOP > 0) {
        process.stdout.write(`\ntop ${TOP} functions by self time (µs/request):\n`);
        for (const { where, us } of result.functions.slice(0, TOP)) process.stdout.write(`  ${us.toFixed(1).padStart(6)}  ${where}\n`);
      }
      if (result.allocations) {
        const { total, byLayer, byFunction } = result.allocations;
        const kb = (bytes) => (bytes / 1024).toFixed(1);
        process.stdout.write(`\n${PROMOTED ? 'outlived a scavenge' : 'allocated'} per request (sampled): ${kb(total)} KiB\n| layer | KiB/request |\n|---|---:|\n`);
        for (const { name, bytes } of byLayer) if (bytes >= 512) process.stdout.write(`| ${name} | ${kb(bytes)} |\n`);
        for (const { name, bytes } of byFunction.slice(0, TOP)) process.stdout.write(`  ${kb(bytes).padStart(6)} KiB  ${name}\n`);
      }
    }
  } finally {
    await database.cleanup();
  }
}

main().catch((error) => {
  log(`FAILED: ${error?.stack ?? error}`);
  process.exit(1);
});
