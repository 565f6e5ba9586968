// bench/load.mjs: one autocannon load (programmatic API, in the runner's process) and its figures.
//
// Figures are computed here rather than taken from autocannon's summary:
//   - latency: every response's time (autocannon's 'response' event gives it in fractional ms)
//     goes into an array, and p50/p90/p99/p99.9 are read from the sorted array; autocannon's own
//     histogram records whole milliseconds, too coarse for p50s of 1-3 ms;
//   - req/s: responses completed / wall time of the measured window;
//   - every body is checked: the service answers HTTP 200 even for errors, so the envelope's
//     `code` is what tells a success from a failure. `codeNonZero` counts bodies that do not
//     start with {"code":0, and `codes` tallies them by code; a body check can be added per load
//     (`check`, e.g. "a market was found");
//   - CPU per request: the server's own CPU time over the measured window (`cpu()`, utime+stime
//     from /proc/<pid>/stat), PostgreSQL's (`dbCpu()`, the whole server) and the runner's
//     (autocannon's: it shares the cores), each divided by the responses received, in µs.
// A configuration measured in several rounds (the runner interleaves them) is merged by
// combine(): req/s over the rounds' summed time, percentiles over every response of every round.
import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';

const SUCCESS_PREFIX = '{"code":0,';
const CODE = /^\{"code":(-?\d+)/;

/**
 * Runs `prewarm` requests (a fixed number: e.g. one pass over a key set, so that a cache starts
 * the measured window full whatever the server's speed), then `warmup` seconds (results dropped,
 * but their failures reported), then `duration` seconds measured. `requests` is autocannon's
 * requests array (setupRequest for distinct requests).
 * check(body) → a string naming a problem, or null. cpu() and dbCpu() → the server's and
 * PostgreSQL's CPU seconds so far (or null).
 * The result's sorted latencies are a non-enumerable `latencies` (kept out of the JSON).
 */
export async function measure({ url, connections, duration, warmup, prewarm = 0, requests, check, label, cpu, dbCpu }) {
  const base = { url, connections, requests, check };
  let warmupStats = null;
  if (prewarm > 0) await once({ ...base, amount: prewarm });
  if (warmup > 0) warmupStats = await once({ ...base, duration: warmup });
  // autocannon drops its sockets with requests still queued in the server: let it finish them
  // before the measured window (and, below, before anything else is measured or stopped).
  if (prewarm > 0 || warmup > 0) await sleep(500);
  const stats = await once({ ...base, duration, cpu, dbCpu });
  await sleep(1000);
  stats.label = label;
  stats.warmup = warmupStats && {
    requests: warmupStats.requests,
    reqPerSec: warmupStats.reqPerSec,
    codeNonZero: warmupStats.codeNonZero,
    failed: sumValues(warmupStats.problems),
    codes: { ...warmupStats.codes, ...warmupStats.problems },
    errors: warmupStats.errors,
  };
  return stats;
}

async function once({ url, connections, duration, amount, requests, check, cpu, dbCpu }) {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let codeNonZero = 0;
  const codes = {};
  const problems = {};

  const verifyBody = (body) => {
    if (body.startsWith(SUCCESS_PREFIX)) {
      const problem = check ? check(body) : null;
      if (!problem) return true;
      problems[problem] = (problems[problem] ?? 0) + 1;
      return false;
    }
    codeNonZero++;
    const code = CODE.exec(body)?.[1] ?? 'not-an-envelope';
    codes[code] = (codes[code] ?? 0) + 1;
    return false;
  };

  const serverCpuBefore = cpu?.() ?? null;
  const dbCpuBefore = dbCpu?.() ?? null;
  const clientCpuBefore = process.cpuUsage();
  const started = performance.now();
  const instance = autocannon({
    url,
    connections,
    ...(amount ? { amount } : { duration }),
    pipelining: 1,
    timeout: 10,
    requests,
    verifyBody,
  });
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const serverCpuAfter = cpu?.() ?? null;
  const dbCpuAfter = dbCpu?.() ?? null;
  const clientCpu = process.cpuUsage(clientCpuBefore);

  const sorted = latencies.subarray(0, count).sort();
  const stats = {
    connections,
    seconds: round2(seconds),
    requests: count,
    reqPerSec: Math.round(count / seconds),
    okPerSec: Math.round((count - codeNonZero - sumValues(problems)) / seconds),
    latencyMs: percentiles(sorted),
    cpuUsPerReq: perRequest(serverCpuBefore, serverCpuAfter, count),
    dbCpuUsPerReq: perRequest(dbCpuBefore, dbCpuAfter, count),
    clientCpuUsPerReq: count === 0 ? null : Math.round((clientCpu.user + clientCpu.system) / count),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    codeNonZero,
    codes,
    problems,
    autocannon: { reqPerSecMean: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 },
  };
  Object.defineProperty(stats, 'latencies', { value: sorted, enumerable: false });
  return stats;
}

/**
 * One configuration's rounds as one row: requests and seconds summed, req/s = their quotient,
 * percentiles from every response, CPU per request weighted by each round's responses, failures
 * summed; `rounds` keeps each round's req/s, p99 and CPU (drift and noise show there).
 */
export function combine(rounds) {
  const requests = rounds.reduce((total, r) => total + r.requests, 0);
  const seconds = rounds.reduce((total, r) => total + r.seconds, 0);
  const all = new Float64Array(requests);
  let at = 0;
  for (const r of rounds) {
    all.set(r.latencies, at);
    at += r.latencies.length;
  }
  const weighted = (field) =>
    rounds.some((r) => r[field] == null) || requests === 0 ? null : Math.round(rounds.reduce((total, r) => total + r[field] * r.requests, 0) / requests);
  const merge = (field) => rounds.reduce((acc, r) => {
    for (const [key, value] of Object.entries(r[field])) acc[key] = (acc[key] ?? 0) + value;
    return acc;
  }, {});
  const sumOf = (field) => rounds.reduce((total, r) => total + r[field], 0);
  return {
    connections: rounds[0].connections,
    seconds: round2(seconds),
    requests,
    reqPerSec: Math.round(requests / seconds),
    okPerSec: Math.round((requests - sumOf('codeNonZero') - sumValues(merge('problems'))) / seconds),
    latencyMs: percentiles(all.sort()),
    cpuUsPerReq: weighted('cpuUsPerReq'),
    dbCpuUsPerReq: weighted('dbCpuUsPerReq'),
    clientCpuUsPerReq: weighted('clientCpuUsPerReq'),
    non2xx: sumOf('non2xx'),
    errors: sumOf('errors'),
    timeouts: sumOf('timeouts'),
    codeNonZero: sumOf('codeNonZero'),
    codes: merge('codes'),
    problems: merge('problems'),
    rounds: rounds.map((r) => ({ position: r.position, reqPerSec: r.reqPerSec, p99: r.latencyMs.p99, cpuUsPerReq: r.cpuUsPerReq })),
    warmupFailures: rounds.reduce((total, r) => total + (r.warmup ? r.warmup.codeNonZero + r.warmup.failed + r.warmup.errors : 0), 0),
  };
}

/** CPU seconds from `before` to `after` per request, in µs; null when either is unknown. */
const perRequest = (before, after, count) => (before == null || after == null || count === 0 ? null : Math.round(((after - before) * 1e6) / count));

function percentiles(sorted) {
  const count = sorted.length;
  const at = (q) => (count === 0 ? null : round2(sorted[Math.min(count - 1, Math.ceil(q * count) - 1)]));
  let sum = 0;
  for (let i = 0; i < count; i++) sum += sorted[i];
  return {
    mean: count ? round2(sum / count) : null,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    p999: at(0.999),
    max: count ? round2(sorted[count - 1]) : null,
  };
}

const sumValues = (object) => Object.values(object).reduce((a, b) => a + b, 0);
const round2 = (value) => Math.round(value * 100) / 100;
