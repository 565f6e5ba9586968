// bench/phases.mjs: the measuring phases of a run, on a database already seeded.
//
// mainPhase, at BENCH_MARKETS: five servers at once, each its own process (idle while another
// is loaded): the service, the service with CORS_ORIGINS set, B (bench/baseline-server.mjs), N
// (bench/nest-server.mjs) and N with the service's shape of no-op layers (the framework alone). After the byte-identity checks, every read load once unmeasured
// (BENCH_STARTUP_WARMUP: a fresh process runs slower until V8 has compiled its hot code and its
// heap has grown, and the first load of each server must not pay for that); then, for each
// connection level:
//   - the seven read loads (N hot, N-shape hot, B hot, service hot, service+CORS hot, B cold,
//     service cold),
//     in BENCH_ROUNDS rounds, each round in the reverse order of the one before (A B C … C B A):
//     every configuration then sits, on average, at the same point in time, so a machine that
//     drifts (it is shared and noisy) favours none of the pairs the targets compare;
//   - the rounds of each configuration merged into one row (load.mjs combine()).
// Then the dispute submission on the service at each level, each request a distinct resolved
// market, the staleness check on both services, and every server's peak RSS.
//
// measureScaling (--scaling): the public read's p50 at a size, on a fresh service and baseline.
import { checkAfterDisputes, checkCors, checkNest, compareBodies } from './checks.mjs';
import { withClient } from './db.mjs';
import { combine, measure } from './load.mjs';
import { describeData } from './seed.mjs';
import { SERVICE_SHAPE, startBaseline, startNest, startService } from './servers.mjs';
import { failedAnswers } from './targets.mjs';
import { coldPaths, disputeCheck, disputePool, disputeRequests, nestItem, readCheck, readPath, readRequests, sampleHot } from './workload.mjs';

/** The read loads of one round, in the first round's order. */
export const READ_LOADS = [
  { server: 'nest', keys: 'hot' },
  { server: 'nestShape', keys: 'hot' },
  { server: 'baseline', keys: 'hot' },
  { server: 'service', keys: 'hot' },
  { server: 'serviceCors', keys: 'hot' },
  { server: 'baseline', keys: 'cold' },
  { server: 'service', keys: 'cold' },
];

export function brief(stats) {
  const failed = stats.codeNonZero + Object.values(stats.problems).reduce((a, b) => a + b, 0);
  return `${stats.reqPerSec} req/s, p50 ${stats.latencyMs.p50} ms, p99 ${stats.latencyMs.p99} ms` +
    (stats.cpuUsPerReq != null ? `, CPU/req ${stats.cpuUsPerReq} µs` : '') +
    (stats.dbCpuUsPerReq != null ? ` (PostgreSQL ${stats.dbCpuUsPerReq} µs)` : '') +
    (failed || stats.errors || stats.non2xx ? `, FAILED ${failed} (${JSON.stringify({ ...stats.codes, ...stats.problems })}), errors ${stats.errors}, non-2xx ${stats.non2xx}` : '');
}

/**
 * ctx: { config, database, log, started(server), stopped(server), logFile(name) }.
 * Fills run.{data, readSlugs, coldKeys, identity, cors, nest, startupWarmup, loads, read,
 * disputes, disputePool, afterDisputes, memory, memoryTrail}.
 */
export async function mainPhase(ctx, run, keys) {
  const { config, database, log } = ctx;
  run.data = await describeData(database.url);
  const hot = await sampleHot(database.url, Math.min(config.readSlugs, config.markets));
  const hotPaths = hot.map(readPath);
  const cold = await coldPaths(database.url, Math.min(config.coldKeys, config.markets));
  run.readSlugs = hotPaths.length;
  run.coldKeys = cold.length;
  const item = await nestItem(database.url, hot);

  const serviceOptions = { databaseUrl: database.url, poolSize: config.poolSize, logLevel: config.logLevel };
  const servers = {
    service: await ctx.started(await startService({ ...serviceOptions, logFile: ctx.logFile('service') })),
    serviceCors: await ctx.started(await startService({
      ...serviceOptions, name: 'service+CORS', corsOrigins: config.corsOrigin, logFile: ctx.logFile('service-cors'),
    })),
    baseline: await ctx.started(await startBaseline({ databaseUrl: database.url, poolSize: config.poolSize, logFile: ctx.logFile('baseline') })),
    nest: await ctx.started(await startNest({ marketItem: item.json, logFile: ctx.logFile('nest') })),
    // What the framework alone charges for the service's pipeline: N with as many no-op layers.
    nestShape: await ctx.started(await startNest({ marketItem: item.json, shape: SERVICE_SHAPE, name: 'nest-shape', logFile: ctx.logFile('nest-shape') })),
  };
  const { service, serviceCors, baseline, nest, nestShape } = servers;
  // The services' RSS at the start and after each step: a steady climb would be a leak.
  run.memoryTrail = [];
  const trail = (after) => run.memoryTrail.push({ after, service: service.memory()?.rssMb, serviceCors: serviceCors.memory()?.rssMb });
  trail('start');
  try {
    run.identity = await compareBodies(database.url, service, baseline);
    log(`service and baseline bodies byte-identical on ${run.identity.compared} requests (${run.identity.statuses.join(', ')})`);
    run.cors = await checkCors(service, serviceCors, hotPaths.slice(0, 20), config.corsOrigin);
    log(`service+CORS: same bodies on ${run.cors.compared} requests, Access-Control-Allow-Origin ${run.cors.allowOrigin}, Vary ${run.cors.vary}`);
    run.nest = await checkNest(nest, item);
    await checkNest(nestShape, item);
    log(`N answers ${run.nest.bodyBytes} bytes (its market_item ${item.bytes} bytes; the hot records' mean ${item.meanBytes})`);

    const coldCursor = { next: 0 }; // shared by every cold load: no two loads read the same markets
    const readLoad = (load, connections, options) => {
      const server = servers[load.server];
      const isHot = load.keys === 'hot';
      return measure({
        url: server.url, connections,
        requests: readRequests(isHot ? hotPaths : cold, { origin: config.corsOrigin, cursor: isHot ? { next: 0 } : coldCursor }),
        check: readCheck, cpu: () => server.cpuSeconds(), dbCpu: database.cpuSeconds, ...options,
      });
    };
    const startupConnections = Math.max(...config.connections);
    run.startupWarmup = [];
    for (const load of READ_LOADS) {
      const stats = await readLoad(load, startupConnections, { duration: config.startupWarmup, warmup: 0, label: `startup warm-up ${load.server} ${load.keys}` });
      run.startupWarmup.push({ server: load.server, keys: load.keys, reqPerSec: stats.reqPerSec, cpuUsPerReq: stats.cpuUsPerReq, failed: failedAnswers(stats) });
      log(`${stats.label} (not measured): ${brief(stats)}`);
    }
    for (const connections of config.connections) {
      const rounds = new Map(READ_LOADS.map((load) => [load, []]));
      let position = 0;
      for (let round = 0; round < config.rounds; round++) {
        const order = round % 2 === 0 ? READ_LOADS : [...READ_LOADS].reverse();
        for (const load of order) {
          const label = `read ${servers[load.server].name} ${load.keys} @${connections} round ${round + 1}`;
          const stats = await readLoad(load, connections, {
            duration: config.duration, warmup: config.warmup, label,
            // Hot: one full pass over the keys first, so a cache starts the window holding them.
            prewarm: load.keys === 'hot' ? hotPaths.length : 0,
          });
          stats.position = position++;
          rounds.get(load).push(stats);
          run.loads.push({ server: load.server, keys: load.keys, round: round + 1, ...stats });
          log(`${label}: ${brief(stats)}`);
        }
      }
      for (const load of READ_LOADS) run.read.push({ server: load.server, keys: load.keys, ...combine(rounds.get(load)) });
      trail(`reads @${connections}`);
    }

    const resolved = await withClient(database.url, async (client) =>
      (await client.query(`SELECT id, source, verdict FROM markets WHERE status = 'resolved' ORDER BY id`)).rows);
    const pool = disputePool(resolved);
    for (const connections of config.connections) {
      const stats = await measure({
        url: service.url, connections, duration: config.disputeDuration, warmup: config.warmup,
        requests: disputeRequests(pool, keys), check: disputeCheck, label: `dispute @${connections}`,
        cpu: () => service.cpuSeconds(), dbCpu: database.cpuSeconds,
      });
      stats.marketsUsedSoFar = pool.used;
      stats.marketsRanOut = pool.overflow > 0;
      run.disputes.push({ server: 'service', ...stats });
      trail(stats.label);
      log(`dispute submission @${connections}: ${brief(stats)} (${pool.used} of ${pool.available} markets used so far)`);
    }
    run.disputePool = { available: pool.available, used: pool.used, reusedAfterRunningOut: pool.overflow };
    if (pool.overflow > 0) log(`! the resolved markets ran out: ${pool.overflow} requests reused a disputed market (they answer 4091)`);

    run.afterDisputes = [];
    for (const checked of [service, serviceCors]) {
      const result = await checkAfterDisputes(database.url, checked, baseline, hot, pool.usedIds());
      run.afterDisputes.push(result);
      log(result.stale > 0
        ? `! STALE: ${result.stale} of ${result.compared} disputed markets read differently on ${checked.name} than in the database:\n${result.first.join('\n')}`
        : `after the dispute loads: ${result.compared} disputed markets (${result.previouslyRead} read while resolved) read the same on ${checked.name} as in the database`);
    }

    run.memory = Object.fromEntries(Object.entries(servers).map(([key, server]) => [key, server.memory()]));
    log(`peak RSS: ${Object.entries(run.memory).map(([key, m]) => `${key} ${m?.peakMb} MB`).join(', ')}`);
  } finally {
    for (const server of Object.values(servers)) await ctx.stopped(server);
  }
}

export async function measureScaling(ctx, size, seedSeconds) {
  const { config, database, log } = ctx;
  const sample = await sampleHot(database.url, Math.min(config.readSlugs, size));
  const paths = sample.map(readPath);
  const service = await ctx.started(await startService({
    databaseUrl: database.url, poolSize: config.poolSize, logLevel: config.logLevel, logFile: ctx.logFile(`service-scaling-${size}`),
  }));
  try {
    const baseline = await ctx.started(await startBaseline({ databaseUrl: database.url, poolSize: config.poolSize, logFile: ctx.logFile(`baseline-scaling-${size}`) }));
    try {
      const results = {};
      for (const [name, server] of [['baseline', baseline], ['service', service]]) {
        results[name] = await measure({
          url: server.url, connections: config.scalingConnections, duration: config.scalingDuration,
          warmup: config.scalingWarmup, requests: readRequests(paths, {}), check: readCheck, label: `scaling ${size} ${name}`,
          cpu: () => server.cpuSeconds(), dbCpu: database.cpuSeconds,
        });
        log(`scaling ${size.toLocaleString('en-US')} markets, ${name}: ${brief(results[name])}`);
      }
      return { markets: size, seedSeconds: Math.round(seedSeconds * 10) / 10, slugs: paths.length, ...results };
    } finally {
      await ctx.stopped(baseline);
    }
  } finally {
    await ctx.stopped(service);
  }
}
