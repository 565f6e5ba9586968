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
//     (`check`, e.g. "a market was found").
import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';

const SUCCESS_PREFIX = '{"code":0,';
const CODE = /^\{"code":(-?\d+)/;

/**
 * Runs `warmup` seconds (results dropped, but their failures reported), then `duration` seconds
 * measured. `requests` is autocannon's requests array (use setupRequest for distinct requests).
 * check(body) → a string naming a problem, or null.
 */
export async function measure({ url, connections, duration, warmup, requests, check, label }) {
  let warmupStats = null;
  if (warmup > 0) {
    warmupStats = await once({ url, connections, duration: warmup, requests, check });
    await sleep(500);
  }
  const stats = await once({ url, connections, duration, requests, check });
  // autocannon drops its sockets with requests still queued in the server: let it finish them
  // before anything else is measured (or the server is stopped).
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

async function once({ url, connections, duration, requests, check }) {
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

  const started = performance.now();
  const instance = autocannon({
    url,
    connections,
    duration,
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

  const sorted = latencies.subarray(0, count).sort();
  const at = (q) => (count === 0 ? null : round2(sorted[Math.min(count - 1, Math.ceil(q * count) - 1)]));
  let sum = 0;
  for (let i = 0; i < count; i++) sum += sorted[i];
  return {
    connections,
    seconds: round2(seconds),
    requests: count,
    reqPerSec: Math.round(count / seconds),
    okPerSec: Math.round((count - codeNonZero - sumValues(problems)) / seconds),
    latencyMs: {
      mean: count ? round2(sum / count) : null,
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      p999: at(0.999),
      max: count ? round2(sorted[count - 1]) : null,
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    codeNonZero,
    codes,
    problems,
    autocannon: { reqPerSecMean: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 },
  };
}

const sumValues = (object) => Object.values(object).reduce((a, b) => a + b, 0);
const round2 = (value) => Math.round(value * 100) / 100;
