// bench/targets.mjs: the partner API's speed targets, read from one run's figures (a benchmark, not a test:
// a target not met is reported, never an exit code). All at TARGETS.connections; a load with
// any failed answer (code≠0, a failed body check, non-2xx, socket error) never meets its target.

export const TARGETS = {
  connections: 50,
  hotVsNest: 0.5, // service hot req/s ≥ 0.5 × N's (0.75 until the lean-shape round)
  hotP99VsBaseline: 1.5, // service hot p99 ≤ 1.5 × B's hot p99
  coldVsBaseline: 0.6, // service cold req/s ≥ 0.6 × B's cold
  disputesPerSec: 1000,
  rssMb: 200, // the service's VmHWM, every load included
  corsVsPlain: 0.9, // hot req/s with CORS_ORIGINS ≥ 0.9 × without ("within 10%"; faster is met)
};

const sum = (object) => Object.values(object ?? {}).reduce((a, b) => a + b, 0);
export const failedAnswers = (row) => row.codeNonZero + sum(row.problems) + row.non2xx + row.errors;
const ratioText = (value) => `${value.toFixed(2)}×`;
const int = (value) => value.toLocaleString('en-US');

/** The merged row of a read configuration at a level. */
export const readRow = (run, server, keys, connections = TARGETS.connections) =>
  run.read.find((row) => row.server === server && row.keys === keys && row.connections === connections);

/** a/b for each round (the rounds of both rows are in round order), for the detail text. */
const byRound = (a, b, field = 'reqPerSec') =>
  a.rounds.length > 1 ? `; by round ${a.rounds.map((round, i) => ratioText(round[field] / b.rounds[i][field])).join(', ')}` : '';

/** Each target: { name, met, detail }. */
export function evaluateTargets(run) {
  const targets = [];
  const c = TARGETS.connections;
  const failures = (...rows) => {
    const failed = rows.filter((row) => failedAnswers(row) > 0);
    return failed.length ? `; FAILED answers on ${failed.map((row) => `${row.server} ${row.keys ?? ''}`.trim()).join(', ')}` : '';
  };
  const ratioTarget = (name, a, b, limit, note = '') => {
    const ratio = a.reqPerSec / b.reqPerSec;
    targets.push({
      name,
      met: ratio >= limit && failedAnswers(a) === 0 && failedAnswers(b) === 0,
      detail: `${ratioText(ratio)} (${int(a.reqPerSec)} vs ${int(b.reqPerSec)} req/s${byRound(a, b)}; ` +
        `CPU per request ${a.cpuUsPerReq} vs ${b.cpuUsPerReq} µs)${note}${failures(a, b)}`,
    });
  };

  const nestHot = readRow(run, 'nest', 'hot');
  const shapeHot = readRow(run, 'nestShape', 'hot');
  const baselineHot = readRow(run, 'baseline', 'hot');
  const serviceHot = readRow(run, 'service', 'hot');
  const corsHot = readRow(run, 'serviceCors', 'hot');
  const baselineCold = readRow(run, 'baseline', 'cold');
  const serviceCold = readRow(run, 'service', 'cold');
  // What the framework alone leaves of N (its no-op layers of the service's shape), and what the layers' work leaves of that.
  const frameworkAlone = serviceHot && shapeHot && nestHot
    ? `; the framework alone (N with the service's shape of no-op layers) ${ratioText(shapeHot.reqPerSec / nestHot.reqPerSec)} N ` +
      `(+${shapeHot.cpuUsPerReq - nestHot.cpuUsPerReq} µs), the layers' work ${ratioText(serviceHot.reqPerSec / shapeHot.reqPerSec)} of that ` +
      `(+${serviceHot.cpuUsPerReq - shapeHot.cpuUsPerReq} µs)${failures(shapeHot)}`
    : '';
  if (serviceHot && nestHot) ratioTarget(`hot read @${c}: service ≥ ${TARGETS.hotVsNest}× N req/s`, serviceHot, nestHot, TARGETS.hotVsNest, frameworkAlone);
  if (serviceHot && baselineHot) {
    const limit = TARGETS.hotP99VsBaseline * baselineHot.latencyMs.p99;
    targets.push({
      name: `hot read @${c}: service p99 ≤ ${TARGETS.hotP99VsBaseline}× B's p99`,
      met: serviceHot.latencyMs.p99 <= limit && failedAnswers(serviceHot) === 0,
      detail: `${serviceHot.latencyMs.p99} ms vs ${TARGETS.hotP99VsBaseline} × ${baselineHot.latencyMs.p99} = ${limit.toFixed(2)} ms ` +
        `(${ratioText(serviceHot.latencyMs.p99 / baselineHot.latencyMs.p99)} B's${byRound(serviceHot, baselineHot, 'p99')})${failures(serviceHot)}`,
    });
  }
  if (serviceCold && baselineCold) ratioTarget(`cold read @${c}: service ≥ ${TARGETS.coldVsBaseline}× B req/s`, serviceCold, baselineCold, TARGETS.coldVsBaseline);
  const disputes = run.disputes.find((row) => row.connections === c);
  if (disputes) {
    targets.push({
      name: `dispute submission @${c} ≥ ${int(TARGETS.disputesPerSec)}/s`,
      met: disputes.okPerSec >= TARGETS.disputesPerSec && failedAnswers(disputes) === 0,
      detail: `${int(disputes.okPerSec)}/s${failures(disputes)}${failedAnswers(disputes) ? ` ${JSON.stringify({ ...disputes.codes, ...disputes.problems })}` : ''}`,
    });
  }
  if (run.memory?.service) {
    targets.push({
      name: `service peak RSS < ${TARGETS.rssMb} MB`,
      met: run.memory.service.peakMb < TARGETS.rssMb,
      detail: `${run.memory.service.peakMb} MB (VmHWM after every load; with CORS: ${run.memory.serviceCors?.peakMb} MB)`,
    });
  }
  if (corsHot && serviceHot) {
    ratioTarget(`hot read @${c} with CORS_ORIGINS: ≥ ${TARGETS.corsVsPlain}× without (within 10%)`, corsHot, serviceHot, TARGETS.corsVsPlain);
  }
  for (const check of run.afterDisputes ?? []) {
    targets.push({
      name: `after the dispute loads, ${check.service}: no stale record (= database)`,
      met: check.stale === 0,
      detail: `${check.stale} of ${check.compared} differ`,
    });
  }
  if (targets.length === 0) targets.push({ name: `targets @${c} connections`, met: false, detail: `no load at ${c} connections (BENCH_CONNECTIONS)` });
  return targets;
}
