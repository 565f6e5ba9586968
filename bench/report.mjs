// bench/report.mjs: the machine description and a run's report, as the printed table (stdout),
// as the Markdown section docs.mjs puts in docs/benchmarks.md, and as the line it appends to
// bench/results/bench.jsonl. Each lists every load's merged figures, the CPU each server used per
// request, the ratios the targets read and the targets, met or not.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { failedAnswers, readRow, TARGETS } from './targets.mjs';

export function describeMachine({ postgres }) {
  const cpus = os.cpus();
  let distro = '';
  try {
    distro = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? '';
  } catch {
    // not Linux
  }
  return {
    cpu: `${cpus[0]?.model?.trim() ?? 'unknown'}${cpuDetails()} × ${cpus.length}`,
    cores: cpus.length,
    ramGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    postgres,
    os: `${distro || os.type()} (${os.type()} ${os.release()}, ${os.arch()})`,
    loadAverageAtStart: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** " (family 26, model 2, 2.6 GHz; virtual machine)" from /proc/cpuinfo, when it says. */
function cpuDetails() {
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    const field = (name) => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(info)?.[1]?.trim();
    const parts = [];
    if (field('cpu family') && field('model')) parts.push(`family ${field('cpu family')}, model ${field('model')}`);
    const mhz = Number(field('cpu MHz'));
    if (mhz > 0) parts.push(`${(mhz / 1000).toFixed(1)} GHz`);
    const virtual = /^flags\s*:.*\bhypervisor\b/m.test(info);
    return parts.length || virtual ? ` (${parts.join(', ')}${virtual ? `${parts.length ? '; ' : ''}virtual machine` : ''})` : '';
  } catch {
    return '';
  }
}

export const SERVER_LABELS = {
  nest: 'N (bare Nest on Express)',
  nestShape: "N, service's shape (no-ops)",
  baseline: 'B (node:http + pg)',
  service: 'service',
  serviceCors: 'service, CORS_ORIGINS set',
};

/** The lines both formats share: what ran, on what, and what was checked. */
function preamble(run) {
  const c = run.config;
  const order = `each read load once unmeasured (${c.startupWarmup} s), then ${c.connections.join(' then ')} connections; ` +
    `at each, ${c.rounds} round${c.rounds > 1 ? 's' : ''} of the seven read loads, ` +
    "in the order N·N with the service's shape·B·service·service+CORS (hot), B·service (cold), every other round reversed";
  const afterDisputes = (run.afterDisputes ?? []).map((check) => `${check.service} ${check.compared - check.stale} of ${check.compared}`).join(', ');
  return [
    `Machine: ${run.machine.cpu}, ${run.machine.ramGb} GB RAM; ${run.machine.os}; Node ${run.machine.node}` +
      `${run.machine.serverNode && run.machine.serverNode !== run.machine.node ? ` (servers on ${run.machine.serverNode})` : ''}; PostgreSQL ${run.machine.postgres} (${run.database})`,
    `CPU busy before start ${run.machine.cpuBusyAtStartPct ?? '?'}%; load average at start ${run.machine.loadAverageAtStart.join(' / ')}, ` +
      `at end ${run.loadAverageAtEnd.join(' / ')}${notIdle(run) ? ' (NOT IDLE: figures are noisy)' : ''}; whole run ${run.wallSeconds} s`,
    `Data: ${int(run.data.markets)} markets over ${run.data.partners} sources (${statusText(run.data.by_status)}), ${int(run.data.proofs)} proofs, ${int(run.data.disputes)} disputes; ${run.data.size}`,
    `Loads: ${order}; each read load ${c.warmup} s warm-up (hot: after one pass over the keys) + ${c.duration} s measured per round; ` +
      `then the dispute loads, ${c.warmup} s + ${c.disputeDuration} s; service LOG_LEVEL=${c.logLevel}, DB_POOL_SIZE=${c.poolSize} (service and B)`,
    `Keys: hot = ${int(run.readSlugs)} polled records, cycled; cold = each request another market, uniformly over ${int(run.coldKeys)} of ` +
      `${int(run.data.markets)}; every read sends Origin: ${c.corsOrigin}`,
    `Checks: service and B byte-identical on ${run.identity.compared} requests; service+CORS same bodies on ${run.cors.compared}, ` +
      `Access-Control-Allow-Origin ${run.cors.allowOrigin}; N answers ${int(run.nest.bodyBytes)} bytes (its market_item ${int(run.nest.itemBytes)}, ` +
      `the hot records' mean ${int(run.nest.hotMeanItemBytes)}); after the dispute loads, read as in the database: ${afterDisputes}`,
  ];
}

/** The read rows of a level, or undefined when one is missing; `ns` (N with the service's shape) only in runs since 2026-11-28. */
function levelRows(run, connections) {
  const row = (server, keys) => readRow(run, server, keys, connections);
  const rows = { n: row('nest', 'hot'), b: row('baseline', 'hot'), s: row('service', 'hot'), sc: row('serviceCors', 'hot'), bc: row('baseline', 'cold'), scold: row('service', 'cold') };
  return Object.values(rows).every(Boolean) ? { ...rows, ns: row('nestShape', 'hot') } : undefined;
}

/** The ratios a level's line prints, rounded as printed. */
function levelRatios({ n, ns, b, s, sc, bc, scold }) {
  const x = (a, bb) => Number((a / bb).toFixed(2));
  return {
    serviceVsNHot: x(s.reqPerSec, n.reqPerSec),
    ...(ns ? { shapeVsNHot: x(ns.reqPerSec, n.reqPerSec), serviceVsShapeHot: x(s.reqPerSec, ns.reqPerSec) } : {}),
    serviceVsBHot: x(s.reqPerSec, b.reqPerSec),
    p99VsBHot: x(s.latencyMs.p99, b.latencyMs.p99),
    serviceVsBCold: x(scold.reqPerSec, bc.reqPerSec),
    corsVsWithout: x(sc.reqPerSec, s.reqPerSec),
  };
}

/** Per level: the ratios the targets read, and what the pipeline costs over N and B per request. */
function ratioLines(run, connections) {
  const rows = levelRows(run, connections);
  if (!rows) return [];
  const { n, ns, b, s, sc, bc, scold } = rows;
  const r = levelRatios(rows);
  const x = (ratio) => `${ratio.toFixed(2)}×`;
  const cpu = (row) => row.cpuUsPerReq ?? NaN;
  // "server+PostgreSQL": the database's share is the whole server's CPU over the same window.
  const both = (row) => `${cpu(row)}${row.dbCpuUsPerReq != null ? `+${row.dbCpuUsPerReq}` : ''}`;
  const dispute = run.disputes.find((d) => d.connections === connections);
  const shape = ns ? `, N's shape/N hot ${x(r.shapeVsNHot)} (the framework alone), service/N's shape hot ${x(r.serviceVsShapeHot)} (the layers' work)` : '';
  return [
    `@${connections} req/s: service/N hot ${x(r.serviceVsNHot)}, service/B hot ${x(r.serviceVsBHot)}, ` +
      `p99 service/B hot ${x(r.p99VsBHot)}, service/B cold ${x(r.serviceVsBCold)}, CORS/without ${x(r.corsVsWithout)}${shape}`,
    `@${connections} CPU per request, server+PostgreSQL (µs): N ${both(n)}${ns ? `; N's shape ${both(ns)} (N's + ${cpu(ns) - cpu(n)})` : ''}; B hot ${both(b)}, cold ${both(bc)}; ` +
      `service hot ${both(s)} (N's ${cpu(n)} + ${cpu(s) - cpu(n)}), with CORS ${both(sc)} (${signed(cpu(sc) - cpu(s))}); ` +
      `service cold ${both(scold)} (B's ${cpu(bc)} + ${cpu(scold) - cpu(bc)})` + (dispute ? `; dispute ${both(dispute)}` : ''),
  ];
}

const COLUMNS = ['conns', 'keys', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'CPU µs/req', 'PG µs/req', 'gen µs/req', 'failed', 'req/s by round'];
function cells(row) {
  return [
    row.connections, row.keys ?? '-', int(row.reqPerSec), ms(row.latencyMs.p50), ms(row.latencyMs.p90), ms(row.latencyMs.p99),
    row.cpuUsPerReq ?? '-', row.dbCpuUsPerReq ?? '-', row.clientCpuUsPerReq ?? '-', failedAnswers(row) + (warmupFailures(row) ? ` (+${warmupFailures(row)} warm-up)` : ''),
    row.rounds ? row.rounds.map((r) => int(r.reqPerSec)).join(' / ') : '-',
  ];
}
const warmupFailures = (row) => row.warmupFailures ?? (row.warmup ? row.warmup.codeNonZero + row.warmup.failed + row.warmup.errors : 0);
const WIDTHS = [6, 6, 9, 8, 8, 8, 11, 10, 11, 8, 20];

export function formatText(run) {
  const out = [''];
  out.push(`=== settlement-oracle benchmark, ${run.startedAt}${run.config.quick ? ', QUICK mode (not comparable)' : ''} ===`);
  out.push(...preamble(run), '');
  out.push(pad('GET /oracle/markets/public', 30) + COLUMNS.map((name, i) => padL(name, WIDTHS[i])).join(''));
  const tableRow = (name, row) => pad(`  ${name}`, 30) + cells(row).map((cell, i) => padL(cell, WIDTHS[i])).join('');
  for (const row of run.read) out.push(tableRow(SERVER_LABELS[row.server], row));
  out.push('POST /oracle/markets/dispute/submit, each request a distinct resolved market ' +
    `(${int(run.disputePool.used)} of ${int(run.disputePool.available)} used)`);
  for (const row of run.disputes) out.push(tableRow('service', row));
  out.push('');
  for (const connections of run.config.connections) out.push(...ratioLines(run, connections));
  for (const row of [...run.read, ...run.disputes]) {
    const failures = { ...row.codes, ...row.problems };
    if (Object.keys(failures).length > 0) out.push(`  ! ${row.server} ${row.keys ?? 'dispute'} @${row.connections}: failed answers ${JSON.stringify(failures)}`);
  }
  out.push(memoryLine(run), logLine(run));
  if (run.scaling.length > 0) out.push('', ...scalingText(run));
  out.push('', `targets @${TARGETS.connections} connections (a benchmark, not a test):`);
  for (const target of run.targets) out.push(`  [${target.met ? 'met' : 'NOT met'}] ${target.name}: ${target.detail}`);
  out.push('');
  return out.join('\n');
}

const memoryLine = (run) =>
  `Peak RSS (VmHWM): ${Object.entries(run.memory).map(([key, m]) => `${SERVER_LABELS[key]} ${m?.peakMb} MB`).join(', ')}. ` +
  `Services' RSS (MB, service / with CORS): ${run.memoryTrail.map((step) => `${step.after} ${step.service}/${step.serviceCors}`).join(' → ')}`;
const logLine = (run) =>
  `Services' logs: ${int(run.serviceLog.lines)} lines, ${run.serviceLog.warn} warn, ${run.serviceLog.error} error, ${run.serviceLog.fatal} fatal` +
  (run.serviceLog.atShutdown ? ` (${run.serviceLog.atShutdown} of them after SIGTERM)` : '') +
  (run.serviceLog.file ? ` (kept in ${run.serviceLog.file})` : '') + run.serviceLog.samples.map((sample) => `\n  ${sample}`).join('');

const scalingSetup = (c) => `hot set, ${c.scalingConnections} conns, ${c.scalingWarmup} s warm-up + ${c.scalingDuration} s, fresh processes per size`;
function scalingText(run) {
  return [
    `Read cost vs. size (${scalingSetup(run.config)}):`,
    '| markets | service p50 ms | service p99 ms | service req/s | service CPU µs/req | B p50 ms | B p99 ms | B req/s | B CPU µs/req |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...run.scaling.map((s) => `| ${int(s.markets)} | ${ms(s.service.latencyMs.p50)} | ${ms(s.service.latencyMs.p99)} | ${int(s.service.reqPerSec)} | ` +
      `${s.service.cpuUsPerReq ?? '-'} | ${ms(s.baseline.latencyMs.p50)} | ${ms(s.baseline.latencyMs.p99)} | ${int(s.baseline.reqPerSec)} | ${s.baseline.cpuUsPerReq ?? '-'} |`),
  ];
}

export function formatMarkdown(run) {
  const md = [`### Run of ${run.startedAt}${run.config.quick ? ' (quick mode: not comparable)' : ''}`, ''];
  md.push(...preamble(run).map((line) => `- ${line}`), '');
  md.push(`| GET /oracle/markets/public | ${COLUMNS.join(' | ')} |`, `|---|${COLUMNS.map(() => '--:').join('|')}|`);
  for (const row of run.read) md.push(`| ${SERVER_LABELS[row.server]} | ${cells(row).join(' | ')} |`);
  md.push(`| **POST /oracle/markets/dispute/submit** (${int(run.disputePool.used)} of ${int(run.disputePool.available)} markets used) |${COLUMNS.map(() => '').join('|')}|`);
  for (const row of run.disputes) md.push(`| service | ${cells(row).join(' | ')} |`);
  md.push('');
  for (const connections of run.config.connections) md.push(...ratioLines(run, connections).map((line) => `- ${line}`));
  md.push(`- ${memoryLine(run)}`, `- ${logLine(run).replace(/\n {2}/g, '\n  - ')}`, '');
  if (run.scaling.length > 0) md.push(...scalingText(run), '');
  md.push(`**Targets** (${TARGETS.connections} connections):`, '');
  for (const target of run.targets) md.push(`- ${target.met ? '✅ met' : '❌ NOT met'}: ${target.name}: ${target.detail}`);
  md.push('');
  return md.join('\n');
}

/**
 * The run as one line of bench/results/bench.jsonl (`"bench": 2`): what its Markdown section
 * states, as data, for `npm run bench:history`. Lines of the previous bench (`"bench": 1`)
 * have its own fields: no N, CORS, cold keys or CPU, and B was called "baseline".
 */
export function historyRecord(run) {
  const [machine, , data, loads, keys, checks] = preamble(run);
  const after = (line) => line.slice(line.indexOf(': ') + 2);
  const figures = (row) => ({
    server: row.server,
    connections: row.connections,
    ...(row.keys ? { keys: row.keys } : {}),
    reqPerSec: row.reqPerSec,
    p50: row.latencyMs.p50,
    p90: row.latencyMs.p90,
    p99: row.latencyMs.p99,
    cpuUsPerReq: row.cpuUsPerReq ?? null,
    dbCpuUsPerReq: row.dbCpuUsPerReq ?? null,
    clientCpuUsPerReq: row.clientCpuUsPerReq ?? null,
    failed: failedAnswers(row),
    ...(warmupFailures(row) ? { warmupFailed: warmupFailures(row) } : {}),
    ...(row.keys ? { roundsReqPerSec: row.rounds ? row.rounds.map((r) => r.reqPerSec) : null } : {}),
  });
  const ratios = {};
  for (const connections of run.config.connections) {
    const rows = levelRows(run, connections);
    if (rows) ratios[connections] = levelRatios(rows);
  }
  const scalingFigures = (s) => ({ p50: s.latencyMs.p50, p99: s.latencyMs.p99, reqPerSec: s.reqPerSec, cpuUsPerReq: s.cpuUsPerReq ?? null });
  return {
    bench: 2,
    id: run.id,
    startedAt: run.startedAt,
    quick: run.config.quick,
    machine: after(machine),
    cpuBusyAtStartPct: run.machine.cpuBusyAtStartPct ?? null,
    loadAverageAtStart: run.machine.loadAverageAtStart,
    loadAverageAtEnd: run.loadAverageAtEnd,
    notIdle: notIdle(run),
    wallSeconds: run.wallSeconds,
    data: after(data),
    loads: after(loads),
    keys: after(keys),
    checks: after(checks),
    read: run.read.map(figures),
    disputePool: { used: run.disputePool.used, available: run.disputePool.available },
    disputes: run.disputes.map(figures),
    ratios,
    peakRssMb: Object.fromEntries(Object.entries(run.memory).map(([key, m]) => [key, m?.peakMb ?? null])),
    rssTrailMb: run.memoryTrail.map((step) => ({ after: step.after, service: step.service ?? null, serviceCors: step.serviceCors ?? null })),
    serviceLog: {
      lines: run.serviceLog.lines, warn: run.serviceLog.warn, error: run.serviceLog.error, fatal: run.serviceLog.fatal,
      ...(run.serviceLog.atShutdown ? { atShutdown: run.serviceLog.atShutdown } : {}),
    },
    ...(run.scaling.length > 0
      ? { scalingSetup: scalingSetup(run.config), scaling: run.scaling.map((s) => ({ markets: s.markets, service: scalingFigures(s.service), baseline: scalingFigures(s.baseline) })) }
      : {}),
    targets: run.targets.map(({ name, met, detail }) => ({ name, met, detail })),
  };
}

const notIdle = (run) => (run.machine.cpuBusyAtStartPct ?? 0) > 15 || run.machine.loadAverageAtStart[0] > run.machine.cores;
const signed = (value) => (value >= 0 ? `+${value}` : String(value));
const pad = (value, width) => String(value).padEnd(width);
const padL = (value, width) => String(value).padStart(width);
const int = (value) => (typeof value === 'number' ? value.toLocaleString('en-US') : String(value));
const ms = (value) => (value == null ? '-' : value.toFixed(2));
const statusText = (byStatus) =>
  Object.entries(byStatus ?? {}).sort().map(([status, count]) => `${status} ${int(count)}`).join(', ');
