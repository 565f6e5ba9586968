// bench/filings.mjs: `npm run bench:filings -- --against <git ref>`. Dispute filings of this build (dist/) beside
// another build of the service, in one run on one PostgreSQL server: each build on a database of its own, seeded
// alike, with two instances (a filing waits until the other instance has read its change, as in production), and
// the loads alternating between the builds round by round, so a machine that drifts favours neither.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyMigrations, distDir, provisionDatabase, query, withClient, withDatabase } from './db.mjs';
import { combine, measure } from './load.mjs';
import { seed } from './seed.mjs';
import { killAllChildren, ROOT, startService } from './servers.mjs';
import { disputeCheck, disputePool, disputeRequests } from './workload.mjs';

const HELP = `usage: npm run bench:filings -- --against <git ref> [--connections 50] [--duration 10] [--rounds 2] [--markets 100000]
  Builds <git ref> in a temporary worktree (the server only, with this checkout's node_modules) and measures
  POST /oracle/markets/dispute/submit on both builds: plain filings, and filings with an Idempotency-Key each.
  BENCH_DATABASE_URL: a PostgreSQL server to use (else an embedded one).`;

function options(argv) {
  const value = (name, fallback) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : fallback;
  };
  if (argv.includes('--help') || !value('against')) {
    console.log(HELP);
    process.exit(argv.includes('--help') ? 0 : 2);
  }
  return {
    against: value('against'),
    connections: Number(value('connections', 50)),
    duration: Number(value('duration', 10)),
    rounds: Number(value('rounds', 2)),
    markets: Number(value('markets', 100_000)),
  };
}

const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** `ref` built in a worktree of its own under `folder`: its dist/. */
function buildRef(ref, folder) {
  const tree = join(folder, 'against');
  execFileSync('git', ['worktree', 'add', '--detach', tree, ref], { cwd: ROOT, stdio: 'ignore' });
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules/@nestjs/cli/bin/nest.js'), 'build', '-p', 'tsconfig.build.json'], { cwd: tree, stdio: 'inherit' });
  return { tree, dist: join(tree, 'dist'), commit: execFileSync('git', ['rev-parse', '--short', ref], { cwd: ROOT, encoding: 'utf8' }).trim() };
}

async function main() {
  const config = options(process.argv.slice(2));
  const database = await provisionDatabase({ log });
  const builds = [];
  const cleanup = async () => {
    killAllChildren();
    await database.cleanup();
    for (const build of builds) if (build.tree) execFileSync('git', ['worktree', 'remove', '--force', build.tree], { cwd: ROOT, stdio: 'ignore' });
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  try {
    const against = buildRef(config.against, database.tmpDir);
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    builds.push({ name: `this build (${head}, dist/)`, dist: distDir(), url: database.url }, { name: `${config.against} (${against.commit})`, ...against });
    builds[1].url = withDatabase(database.serverUrl, `${database.database}_against`);
    await query(database.serverUrl, `CREATE DATABASE "${database.database}_against"`);
    database.cleanup = ((drop) => async () => {
      await query(database.serverUrl, `DROP DATABASE IF EXISTS "${database.database}_against" WITH (FORCE)`).catch(() => undefined);
      await drop();
    })(database.cleanup);

    await applyMigrations(builds[0].url);
    execFileSync(process.execPath, [join(builds[1].dist, 'migrate.js'), 'run'], { env: { ...process.env, DATABASE_URL: builds[1].url }, stdio: 'ignore' });
    for (const build of builds) {
      const { keys } = await seed(build.url, { markets: config.markets, log: () => undefined });
      const resolved = await withClient(build.url, async (client) => (await client.query(`SELECT id, source, verdict FROM markets WHERE status = 'resolved' ORDER BY id`)).rows);
      Object.assign(build, { keys, pool: disputePool(resolved) });
      const logFile = (suffix) => join(database.tmpDir, `${build === builds[0] ? 'this' : 'against'}-${suffix}.log`);
      const serve = (suffix) => startService({ name: `${build.name} ${suffix}`, databaseUrl: build.url, poolSize: 10, logLevel: 'info', logFile: logFile(suffix), dist: build.dist });
      build.servers = [await serve('a'), await serve('b')];
      log(`${build.name}: ${resolved.length} resolved markets, two instances up`);
    }

    const loads = [{ name: 'filings', idempotencyKeys: false }, { name: 'filings with Idempotency-Key', idempotencyKeys: true }];
    const results = [];
    for (const load of loads) {
      const rounds = builds.map(() => []);
      for (let round = 0; round < config.rounds; round++) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const b of order) {
          const build = builds[b];
          const stats = await measure({
            url: build.servers[0].url, connections: config.connections, duration: config.duration, warmup: 2,
            requests: disputeRequests(build.pool, build.keys, load), check: disputeCheck, label: `${load.name} ${build.name} round ${round + 1}`,
            cpu: () => build.servers[0].cpuSeconds(), dbCpu: database.cpuSeconds,
          });
          rounds[b].push(stats);
          log(`${stats.label}: ${stats.reqPerSec}/s, p50 ${stats.latencyMs.p50} ms, p99 ${stats.latencyMs.p99} ms, ${stats.cpuUsPerReq} µs CPU, PG ${stats.dbCpuUsPerReq} µs, failed ${stats.codeNonZero}`);
        }
      }
      for (const [b, build] of builds.entries()) results.push({ load: load.name, build: build.name, ...combine(rounds[b]), rounds: rounds[b].map((r) => r.reqPerSec) });
    }

    console.log(`\nfilings @${config.connections} connections, ${config.rounds} rounds of ${config.duration} s each, alternating:`);
    for (const load of loads) {
      const [mine, theirs] = results.filter((row) => row.load === load.name);
      for (const row of [mine, theirs]) {
        console.log(`  ${load.name.padEnd(30)} ${row.build.padEnd(36)} ${String(row.reqPerSec).padStart(6)}/s (rounds ${row.rounds.join(', ')})  p50 ${row.latencyMs.p50} ms  p99 ${row.latencyMs.p99} ms  CPU ${row.cpuUsPerReq} µs  PG ${row.dbCpuUsPerReq} µs  failed ${row.codeNonZero}`);
      }
      console.log(`  ${''.padEnd(30)} this build / ${config.against}: ${(mine.reqPerSec / theirs.reqPerSec).toFixed(2)}x`);
    }
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    const file = join(ROOT, 'bench/results', `filings-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ config, results }, null, 2));
    log(`written ${file}`);
  } finally {
    await cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
