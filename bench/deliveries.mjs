// bench/deliveries.mjs: `npm run bench:deliveries [-- --against <git ref>] [--quick]`. Webhook deliveries of this build
// (dist/) in one run on an embedded PostgreSQL: bursts of admin writes to partners' endpoints on a loopback receiver
// that verifies every delivery with `standardwebhooks`, with 1 and 2 instances, with another partner's endpoints
// hanging; a bare sender as the ceiling; one-at-a-time writes and filings; idle instances' CPU and transactions
// (with --against, the other build's idle figures too, on a database of its own). Results: bench/results/deliveries-*.json.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { distDir, provisionDatabase, query, withClient, withDatabase } from './db.mjs';
import { seed } from './seed.mjs';
import { killAllChildren, ROOT, startService } from './servers.mjs';
import { disputePool } from './workload.mjs';

const argv = process.argv.slice(2);
const flag = (name, fallback) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const QUICK = argv.includes('--quick');
const AGAINST = flag('against', null);
const IDLE_SECONDS = Number(flag('idle-seconds', QUICK ? 20 : 60));
/** --only bursts,bare,one-at-a-time,idle: those parts alone. */
const PARTS = new Set((flag('only', 'bursts,bare,one-at-a-time,idle')).split(','));
const ADMIN_KEY = `bench-master-${randomBytes(12).toString('hex')}`;
const WRITERS = 16;
const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const round = (value, digits = 1) => (value === null ? null : Number(value.toFixed(digits)));

/** The loopback receiver: verifies each delivery with its webhook's secret; `hang` paths never answer. */
function startReceiver() {
  const secrets = new Map();
  const hanging = new Set();
  const arrivals = [];
  let invalid = 0;
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      if (hanging.has(request.url)) return;
      const body = Buffer.concat(chunks).toString();
      try {
        new Webhook(secrets.get(request.url)).verify(body, request.headers);
        arrivals.push({ at: performance.now(), path: request.url, id: request.headers['webhook-id'], market: JSON.parse(body).data.market.id });
      } catch {
        invalid++;
      }
      response.end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: (path) => `http://127.0.0.1:${server.address().port}${path}`,
    secrets, hanging, arrivals, server,
    get invalid() { return invalid; },
  })));
}

async function call(server, method, path, body, headers = { authorization: `Bearer ${ADMIN_KEY}` }) {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body && JSON.stringify(body) });
  const answer = await response.json();
  if (answer.code !== 0) throw new Error(`${method} ${path}: ${JSON.stringify(answer).slice(0, 300)}`);
  return { data: answer.data, endedAt: performance.now(), ms: performance.now() - started };
}

async function runPool(tasks, width) {
  const results = [];
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < tasks.length) {
      const n = next++;
      results[n] = await tasks[n]();
    }
  }));
  return results;
}

let scenarioCount = 0;
/** A partner `source` with `endpoints` webhooks on the receiver, `hanging` of them never answering. */
async function partner(server, receiver, source, endpoints, hanging = 0) {
  await call(server, 'POST', '/admin/partners', { source, name: `${source} Ltd` });
  for (let n = 0; n < endpoints; n++) {
    const path = `/${source}/${n}`;
    const { data } = await call(server, 'POST', `/admin/partners/${source}/webhooks`, { url: receiver.url(path) });
    receiver.secrets.set(path, data.secret);
    if (n < hanging) receiver.hanging.add(path);
  }
}

/** `events` market writes per partner (WRITERS at once, across `servers`); the deliveries to answering endpoints, timed from each write's answer. */
async function burst(servers, receiver, partners, events, { timeoutMs = 120_000 } = {}) {
  const answeredAt = new Map();
  const from = receiver.arrivals.length;
  const tasks = partners.flatMap(({ source }) => Array.from({ length: events }, (_, n) => async () => {
    const written = await call(servers[n % servers.length], 'POST', '/admin/markets', { source, slug: `m-${n}` });
    answeredAt.set(written.data.id, written.endedAt);
  }));
  const started = performance.now();
  await runPool(tasks, WRITERS);
  const answering = new Set(partners.map(({ source }) => source));
  const wanted = partners.reduce((sum, p) => sum + p.endpoints - (p.hanging ?? 0), 0) * events;
  const mine = () => receiver.arrivals.slice(from).filter((arrival) => answering.has(arrival.path.split('/')[1]));
  const deadline = performance.now() + timeoutMs;
  while (new Set(mine().map((a) => `${a.path} ${a.id}`)).size < wanted && performance.now() < deadline) await sleep(50);
  const arrived = mine();
  const latencies = arrived.map((arrival) => arrival.at - answeredAt.get(arrival.market)).filter((ms) => ms !== undefined && !Number.isNaN(ms));
  const unique = new Set(arrived.map((a) => `${a.path} ${a.id}`)).size;
  const lastAt = Math.max(...arrived.map((a) => a.at));
  return {
    deliveries: unique, wanted, duplicates: arrived.length - unique,
    per_second: round(unique / ((lastAt - started) / 1000), 0),
    p50_ms: round(percentile(latencies, 50), 0), p99_ms: round(percentile(latencies, 99), 0),
  };
}

/** A plain Node loop: the same bodies signed with standardwebhooks, POSTed over keep-alive, 64 at once. */
async function bareSender(receiver, count) {
  const path = '/bare/0';
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  receiver.secrets.set(path, secret);
  const signer = new Webhook(secret);
  const agent = new http.Agent({ keepAlive: true });
  const from = receiver.arrivals.length;
  const started = performance.now();
  await runPool(Array.from({ length: count }, (_, n) => () => new Promise((resolve, reject) => {
    const body = JSON.stringify({ type: 'market.created', timestamp: new Date().toISOString(), data: { sequence: n, market: { id: n, source: 'bare', slug: `m-${n}` } } });
    const id = `evt_${n}`;
    const timestamp = new Date();
    const headers = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp / 1000)), 'webhook-signature': signer.sign(id, timestamp, body) };
    const request = http.request(receiver.url(path), { method: 'POST', agent, headers }, (response) => response.resume().on('end', resolve));
    request.on('error', reject);
    request.end(body);
  })), 64);
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { deliveries: receiver.arrivals.length - from, per_second: round(count / seconds, 0) };
}

/** Node CPU (each instance's, as % of a core), PostgreSQL's CPU (% of a core) and transactions/s on `url`'s database, over `seconds` of nothing. */
async function idle(servers, database, url, seconds) {
  await sleep(5_000);
  const commits = () => withClient(url, async (client) => Number((await client.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit));
  const nodeBefore = servers.map((server) => server.cpuSeconds());
  const pgBefore = database.cpuSeconds();
  const before = await commits();
  await sleep(seconds * 1000);
  const after = await commits();
  const nodeCpu = servers.map((server, n) => (100 * (server.cpuSeconds() - nodeBefore[n])) / seconds);
  return {
    instances: servers.length,
    node_cpu_percent_each: nodeCpu.map((cpu) => round(cpu, 2)),
    postgres_cpu_percent: pgBefore === null ? null : round((100 * (database.cpuSeconds() - pgBefore)) / seconds, 2),
    // The measuring session's own transaction (the first read) is not the instances'.
    transactions_per_second: round((after - before - 1) / seconds, 2),
  };
}

/** Admin writes and filings one at a time, 20 webhooks registered to the partner written to. */
async function oneAtATime(a, receiver, database, n, results) {
  await partner(a, receiver, 'onebyone', 20);
  const writes = [];
  for (let k = 0; k < n(200); k++) writes.push((await call(a, 'POST', '/admin/markets', { source: 'onebyone', slug: `w-${k}` })).ms);
  results.admin_write = { n: writes.length, p50_ms: round(percentile(writes, 50)), p99_ms: round(percentile(writes, 99)) };
  const existing = await withClient(database.url, async (client) => Number((await client.query('SELECT count(*) AS count FROM markets')).rows[0].count));
  const { keys } = await seed(database.url, { markets: existing + 2_000, log: () => undefined, analyze: false });
  const filingSource = Object.keys(keys)[0];
  const resolved = await withClient(database.url, async (client) => (await client.query(`SELECT id, source, verdict FROM markets WHERE status = 'resolved' AND source = $1 ORDER BY id LIMIT 400`, [filingSource])).rows);
  for (let k = 0; k < 20; k++) {
    const path = `/filings/${k}`;
    const { data } = await call(a, 'POST', `/admin/partners/${filingSource}/webhooks`, { url: receiver.url(path) }).catch(() => ({ data: null }));
    if (data) receiver.secrets.set(path, data.secret);
  }
  const pool = disputePool(resolved);
  const filings = [];
  for (let k = 0; k < Math.min(n(200), pool.available); k++) {
    const market = pool.next();
    const body = { market_id: Number(market.id), submitter_id: `u-${k}`, submitter_name: 'Bench', submitter_selection: market.verdict === 'YES' ? 'NO' : 'YES', reason_text: 'The official source was corrected after the close.', submitted_at: new Date().toISOString() };
    filings.push((await call(a, 'POST', '/oracle/markets/dispute/submit', body, { 'x-api-key': keys[market.source] })).ms);
  }
  results.filing = { n: filings.length, p50_ms: round(percentile(filings, 50)), p99_ms: round(percentile(filings, 99)) };
  log(`one at a time: writes ${JSON.stringify(results.admin_write)}, filings ${JSON.stringify(results.filing)}`);
}

function buildRef(ref, folder) {
  const tree = join(folder, 'against');
  execFileSync('git', ['worktree', 'add', '--detach', tree, ref], { cwd: ROOT, stdio: 'ignore' });
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules/@nestjs/cli/bin/nest.js'), 'build', '-p', 'tsconfig.build.json'], { cwd: tree, stdio: 'inherit' });
  return { tree, dist: join(tree, 'dist'), commit: execFileSync('git', ['rev-parse', '--short', ref], { cwd: ROOT, encoding: 'utf8' }).trim() };
}

async function main() {
  const database = await provisionDatabase({ log });
  const receiver = await startReceiver();
  let against = null;
  const extraDatabases = [];
  process.once('SIGINT', () => { killAllChildren(); void database.cleanup().finally(() => process.exit(130)); });
  const env = { ADMIN_MASTER_KEY: ADMIN_KEY, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT_ADMIN_PER_MINUTE: '1000000000' };
  const start = (name, url = database.url, dist = distDir()) =>
    startService({ name, databaseUrl: url, poolSize: 10, logLevel: 'warn', logFile: join(database.tmpDir, `${name}.log`), dist, env });
  const results = { at: new Date().toISOString(), commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(), quick: QUICK };
  try {
    const a = await start('a');
    let b = null;
    const scale = QUICK ? 0.2 : 1;
    const n = (count) => Math.max(1, Math.round(count * scale));
    results.bursts = [];
    for (const count of PARTS.has('bursts') ? [1, 2] : []) {
      // The second instance starts for the 2-instance runs only: every instance running sends.
      if (count === 2) b = await start('b');
      const servers = count === 1 ? [a] : [a, b];
      const shapes = [
        { name: '1 endpoint x 1,000 events', partners: [{ endpoints: 1 }], events: n(1000) },
        { name: '20 endpoints x 50 events', partners: [{ endpoints: 20 }], events: n(50) },
        { name: '200 endpoints (20 partners x 10) x 10 events', partners: Array.from({ length: 20 }, () => ({ endpoints: 10 })), events: 10 },
      ];
      for (const shape of shapes) {
        for (const hanging of [false, true]) {
          const id = ++scenarioCount;
          const partners = shape.partners.map((p, i) => ({ ...p, source: `s${id}p${i}` }));
          for (const p of partners) await partner(a, receiver, p.source, p.endpoints);
          if (hanging) {
            const stuck = { source: `s${id}stuck`, endpoints: 2, hanging: 2 };
            await partner(a, receiver, stuck.source, 2, 2);
            // A backlog of 40 events to the hanging endpoints (80 deliveries) before the burst.
            await runPool(Array.from({ length: 40 }, (_, k) => () => call(servers[k % servers.length], 'POST', '/admin/markets', { source: stuck.source, slug: `h-${k}` })), WRITERS);
            await sleep(500);
          }
          const figures = await burst(servers, receiver, partners, shape.events);
          const line = { shape: shape.name, instances: servers.length, hanging: hanging ? '2 endpoints of another partner, 40 events behind them' : 'none', ...figures };
          results.bursts.push(line);
          log(JSON.stringify(line));
          if (hanging) await sleep(11_000); // the hanging attempts time out before the next burst
        }
      }
    }
    if (PARTS.has('bare')) {
      results.bare_sender = await bareSender(receiver, n(1000));
      log(`bare sender: ${JSON.stringify(results.bare_sender)}`);
    }
    if (PARTS.has('one-at-a-time')) await oneAtATime(a, receiver, database, n, results);
    await a.stop();
    await b?.stop();

    // Idle instances on databases of their own: the bursts' hanging deliveries retry on the first.

    results.idle = [];
    if (!PARTS.has('idle')) throw Object.assign(new Error('done'), { done: true });
    const idleDatabase = async (suffix) => {
      await query(database.serverUrl, `CREATE DATABASE "${database.database}_${suffix}"`);
      extraDatabases.push(`${database.database}_${suffix}`);
      return withDatabase(database.serverUrl, `${database.database}_${suffix}`);
    };
    const builds = [{ name: `this build (${results.commit})`, url: await idleDatabase('idle'), dist: distDir() }];
    if (AGAINST) {
      against = buildRef(AGAINST, database.tmpDir);
      builds.push({ name: `${AGAINST} (${against.commit})`, url: await idleDatabase('against'), dist: against.dist });
    }
    for (const build of builds) {
      for (const count of [1, 3]) {
        const servers = [];
        for (let k = 0; k < count; k++) servers.push(await start(`idle-${builds.indexOf(build)}-${count}-${k}`, build.url, build.dist));
        const figures = { build: build.name, ...(await idle(servers, database, build.url, IDLE_SECONDS)) };
        results.idle.push(figures);
        log(`idle: ${JSON.stringify(figures)}`);
        for (const server of servers) await server.stop();
      }
    }
  } catch (error) {
    if (!error.done) throw error;
  } finally {
    results.invalid_signatures = receiver.invalid;
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    const file = join(ROOT, 'bench/results', `deliveries-${results.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    log(`results: ${file}`);
    killAllChildren();
    receiver.server.closeAllConnections();
    receiver.server.close();
    for (const name of extraDatabases) await query(database.serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    await database.cleanup();
    if (against) execFileSync('git', ['worktree', 'remove', '--force', against.tree], { cwd: ROOT, stdio: 'ignore' });
  }
}

await main();
