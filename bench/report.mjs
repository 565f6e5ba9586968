// bench/report.mjs: the machine description, the targets, the printed table, the section of
// docs/benchmarks.md (prepended between <!-- bench:runs:start --> and <!-- bench:runs:end -->,
// last KEEP_RUNS runs kept) and the raw JSON in bench/results/.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';

export const KEEP_RUNS = 6;
const START = '<!-- bench:runs:start -->';
const END = '<!-- bench:runs:end -->';
const RUN_MARK = '<!-- bench:run ';

export const TARGETS = {
  readRatio: 1.0, // service req/s ≥ 1.0 × baseline req/s at 50 connections (and p99 ≤ baseline's)
  readConnections: 50,
  disputesPerSec: 1000, // at 50 connections
  disputeConnections: 50,
  rssMb: 200, // service VmHWM
};

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

/** Each target: { name, met, detail }. A load with failed responses never meets its target. */
export function evaluateTargets(run) {
  const targets = [];
  const read = (target, connections) => run.read.find((row) => row.target === target && row.connections === connections);
  const clean = (row) => row && row.codeNonZero === 0 && row.errors === 0 && row.non2xx === 0 && sum(row.problems) === 0;

  const service = read('service', TARGETS.readConnections);
  const baseline = read('baseline', TARGETS.readConnections);
  if (service && baseline) {
    const ratio = service.reqPerSec / baseline.reqPerSec;
    targets.push({
      name: `public read @${TARGETS.readConnections} conns: service req/s ≥ ${TARGETS.readRatio.toFixed(1)}× baseline`,
      met: ratio >= TARGETS.readRatio && clean(service) && clean(baseline),
      detail: `${ratio.toFixed(2)}× (${service.reqPerSec} vs ${baseline.reqPerSec} req/s)${clean(service) ? '' : ', service had failed responses'}`,
    });
    targets.push({
      name: `public read @${TARGETS.readConnections} conns: service p99 ≤ baseline p99`,
      met: service.latencyMs.p99 <= baseline.latencyMs.p99 && clean(service),
      detail: `${service.latencyMs.p99} ms vs ${baseline.latencyMs.p99} ms`,
    });
  }
  const disputes = run.disputes.find((row) => row.connections === TARGETS.disputeConnections);
  if (disputes) {
    targets.push({
      name: `dispute submission @${TARGETS.disputeConnections} conns ≥ ${TARGETS.disputesPerSec}/s`,
      met: disputes.okPerSec >= TARGETS.disputesPerSec && clean(disputes),
      detail: `${disputes.okPerSec}/s${clean(disputes) ? '' : `, ${disputes.codeNonZero + sum(disputes.problems)} failed answers ${JSON.stringify(disputes.codes)}`}`,
    });
  }
  if (run.afterDisputes) {
    targets.push({
      name: 'public read after the dispute loads: no stale record (service = database)',
      met: run.afterDisputes.stale === 0,
      detail: `${run.afterDisputes.stale} of ${run.afterDisputes.compared} differ`,
    });
  }
  if (run.memory?.service) {
    targets.push({
      name: `service peak RSS < ${TARGETS.rssMb} MB`,
      met: run.memory.service.peakMb < TARGETS.rssMb,
      detail: `${run.memory.service.peakMb} MB (VmHWM)`,
    });
  }
  return targets;
}

// ---------------------------------------------------------------- plain text (stdout)

export function formatText(run) {
  const out = [];
  const c = run.config;
  out.push('');
  out.push(`=== settlement-oracle benchmark, ${run.startedAt} (${run.wallSeconds} s${run.config.quick ? ', QUICK mode' : ''}) ===`);
  out.push(`machine: ${run.machine.cpu}, ${run.machine.ramGb} GB RAM, Node ${run.machine.node}${serversOnOtherNode(run) ? ` (servers on ${run.machine.serverNode})` : ''}, PostgreSQL ${run.machine.postgres}, ${run.machine.os}`);
  out.push(`CPU busy before start: ${run.machine.cpuBusyAtStartPct ?? '?'}%; load average at start: ${run.machine.loadAverageAtStart.join(' ')}, at end: ${run.loadAverageAtEnd.join(' ')}${notIdle(run) ? '  (NOT IDLE: figures are noisy)' : ''}`);
  out.push(`data: ${fmtInt(run.data.markets)} markets, ${fmtInt(run.data.proofs)} proofs, ${fmtInt(run.data.disputes)} disputes, ${run.data.partners} sources, ${run.data.size} (${JSON.stringify(run.data.by_status)})`);
  out.push(`each load: ${c.warmup} s warm-up, then ${c.duration} s measured; service LOG_LEVEL=${c.logLevel}, DB_POOL_SIZE=${c.poolSize} (both servers)`);
  out.push(`bodies: service and baseline byte-identical on ${run.identity.compared} requests before the loads; ` +
    (run.afterDisputes.stale > 0
      ? `STALE after the dispute loads: ${run.afterDisputes.stale} of ${run.afterDisputes.compared} disputed markets differ`
      : `after the dispute loads, ${run.afterDisputes.compared} disputed markets read as in the database`));
  out.push('');
  const header = pad('', 30) + padL('conns', 6) + padL('req/s', 9) + padL('p50 ms', 9) + padL('p90 ms', 9) + padL('p99 ms', 9) + padL('non-2xx', 9) + padL('code≠0', 8) + padL('errors', 8);
  const line = (name, row) =>
    pad(name, 30) + padL(row.connections, 6) + padL(row.reqPerSec, 9) + padL(fmtMs(row.latencyMs.p50), 9) + padL(fmtMs(row.latencyMs.p90), 9) +
    padL(fmtMs(row.latencyMs.p99), 9) + padL(row.non2xx, 9) + padL(row.codeNonZero + sum(row.problems), 8) + padL(row.errors, 8);
  out.push(`GET /oracle/markets/public over ${fmtInt(run.readSlugs)} distinct existing (source, slug) pairs`);
  out.push(header);
  for (const row of run.read) out.push(line(`  ${row.target}`, row));
  for (const ratio of run.ratios) {
    out.push(`  ratio service/baseline @${ratio.connections}: req/s ${ratio.reqPerSec.toFixed(2)}×, p50 ${ratio.p50.toFixed(2)}×, p99 ${ratio.p99.toFixed(2)}×`);
  }
  out.push('');
  out.push(`POST /oracle/markets/dispute/submit, each request a distinct resolved market (${fmtInt(run.disputePool.available)} reserved, ${fmtInt(run.disputePool.used)} used)`);
  out.push(header);
  for (const row of run.disputes) out.push(line('  service', row));
  for (const row of [...run.read, ...run.disputes]) {
    const failures = { ...row.codes, ...row.problems };
    if (Object.keys(failures).length > 0) out.push(`  ! ${row.label}: failed answers ${JSON.stringify(failures)}`);
    if (row.warmup && row.warmup.codeNonZero + row.warmup.failed + row.warmup.errors > 0) {
      out.push(`  ! ${row.label}, warm-up: ${row.warmup.codeNonZero + row.warmup.failed} failed answers ${JSON.stringify(row.warmup.codes)}, ${row.warmup.errors} errors`);
    }
  }
  out.push('');
  const m = run.memory;
  out.push(`service memory: peak RSS (VmHWM) ${m.service.peakMb} MB, RSS at end ${m.service.rssMb} MB` +
    (m.baseline ? `; baseline: peak ${m.baseline.peakMb} MB, at end ${m.baseline.rssMb} MB` : ''));
  if (run.memoryTrail) out.push(`  service RSS after each step: ${run.memoryTrail.map((step) => `${step.after} ${step.rssMb}`).join(' → ')} MB`);
  out.push(`service log: ${fmtInt(run.serviceLog.lines)} lines, ${run.serviceLog.warn} warn, ${run.serviceLog.error} error, ${run.serviceLog.fatal} fatal` +
    (run.serviceLog.atShutdown ? ` (${run.serviceLog.atShutdown} of them logged after SIGTERM)` : '') +
    (run.serviceLog.file ? ` (kept in ${run.serviceLog.file})` : ''));
  for (const sample of run.serviceLog.samples) out.push(`  ${sample}`);
  if (run.scaling.length > 0) {
    out.push('');
    out.push(`read cost vs. size (${run.config.scalingConnections} conns, ${run.config.scalingWarmup} s warm-up + ${run.config.scalingDuration} s, fresh processes per size)`);
    out.push(pad('markets', 12) + padL('svc p50', 9) + padL('svc p99', 9) + padL('svc req/s', 11) + padL('base p50', 10) + padL('base p99', 10) + padL('base req/s', 12) + padL('seed s', 8));
    for (const row of run.scaling) {
      out.push(pad(fmtInt(row.markets), 12) + padL(fmtMs(row.service.latencyMs.p50), 9) + padL(fmtMs(row.service.latencyMs.p99), 9) + padL(row.service.reqPerSec, 11) +
        padL(fmtMs(row.baseline.latencyMs.p50), 10) + padL(fmtMs(row.baseline.latencyMs.p99), 10) + padL(row.baseline.reqPerSec, 12) + padL(row.seedSeconds, 8) +
        (row.service.codeNonZero + row.baseline.codeNonZero + sum(row.service.problems) + sum(row.baseline.problems) > 0 ? '  ! failed answers' : ''));
    }
  }
  out.push('');
  out.push('targets (a benchmark, not a test):');
  for (const target of run.targets) out.push(`  [${target.met ? 'met' : 'NOT met'}] ${target.name}: ${target.detail}`);
  out.push('');
  return out.join('\n');
}

// ---------------------------------------------------------------- markdown (docs/benchmarks.md)

export function formatMarkdown(run) {
  const c = run.config;
  const md = [];
  md.push(`${RUN_MARK}${run.id} -->`);
  md.push(`### Run of ${run.startedAt}${c.quick ? ' (quick mode: not comparable)' : ''}`);
  md.push('');
  md.push(`- Machine: ${run.machine.cpu}, ${run.machine.ramGb} GB RAM; ${run.machine.os}`);
  md.push(`- Node ${run.machine.node}${serversOnOtherNode(run) ? ` (servers on ${run.machine.serverNode})` : ''}; PostgreSQL ${run.machine.postgres} (${run.database})`);
  md.push(`- CPU busy before start ${run.machine.cpuBusyAtStartPct ?? '?'}%; load average at start ${run.machine.loadAverageAtStart.join(' / ')}, at end ${run.loadAverageAtEnd.join(' / ')}${notIdle(run) ? ' (**the machine was not idle: figures are noisy**)' : ''}`);
  md.push(`- Data: ${fmtInt(run.data.markets)} markets over ${run.data.partners} sources (${statusText(run.data.by_status)}), ${fmtInt(run.data.proofs)} proofs, ${fmtInt(run.data.disputes)} disputes; ${run.data.size}`);
  md.push(`- Each load: ${c.warmup} s warm-up, ${c.duration} s measured; service \`LOG_LEVEL=${c.logLevel}\`; \`DB_POOL_SIZE=${c.poolSize}\` for both servers; wall time of the whole run ${run.wallSeconds} s`);
  md.push(`- Bodies byte-identical (service vs baseline) on ${run.identity.compared} requests before the loads; after the dispute loads ` +
    (run.afterDisputes.stale > 0
      ? `**${run.afterDisputes.stale} of ${run.afterDisputes.compared} disputed markets read stale on the service**`
      : `${run.afterDisputes.compared} disputed markets (${run.afterDisputes.previouslyRead} read while resolved) read as in the database`));
  md.push('');
  md.push(`**Public read** \`GET /oracle/markets/public\`, ${fmtInt(run.readSlugs)} distinct existing slugs:`);
  md.push('');
  md.push('| server | conns | req/s | p50 ms | p90 ms | p99 ms | non-2xx | code≠0 | errors |');
  md.push('|---|--:|--:|--:|--:|--:|--:|--:|--:|');
  const row = (name, r) =>
    `| ${name} | ${r.connections} | ${fmtInt(r.reqPerSec)} | ${fmtMs(r.latencyMs.p50)} | ${fmtMs(r.latencyMs.p90)} | ${fmtMs(r.latencyMs.p99)} | ${r.non2xx} | ${r.codeNonZero + sum(r.problems)} | ${r.errors} |`;
  for (const r of run.read) md.push(row(r.target, r));
  md.push('');
  md.push(run.ratios.map((r) => `Ratio service/baseline @${r.connections}: **${r.reqPerSec.toFixed(2)}×** req/s, p99 ${r.p99.toFixed(2)}×.`).join(' '));
  md.push('');
  md.push(`**Dispute submission** \`POST /oracle/markets/dispute/submit\`, each request a distinct resolved market:`);
  md.push('');
  md.push('| server | conns | req/s | p50 ms | p90 ms | p99 ms | non-2xx | code≠0 | errors |');
  md.push('|---|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const r of run.disputes) md.push(row('service', r));
  md.push('');
  const failures = [...run.read, ...run.disputes].filter((r) => r.codeNonZero + sum(r.problems) > 0);
  for (const r of failures) md.push(`- ⚠ ${r.label}: failed answers ${JSON.stringify({ ...r.codes, ...r.problems })}`);
  if (failures.length) md.push('');
  md.push(`**Memory**: service peak RSS (VmHWM) **${run.memory.service.peakMb} MB**, ${run.memory.service.rssMb} MB at the end` +
    (run.memory.baseline ? ` (baseline: ${run.memory.baseline.peakMb} MB peak).` : '.') +
    ` Service log: ${fmtInt(run.serviceLog.lines)} lines, ${run.serviceLog.warn} warn, ${run.serviceLog.error} error` +
    (run.serviceLog.atShutdown ? ` (${run.serviceLog.atShutdown} of them after SIGTERM).` : '.'));
  if (run.memoryTrail) md.push(`Service RSS after each step (MB): ${run.memoryTrail.map((step) => `${step.after} ${step.rssMb}`).join(' → ')}.`);
  md.push('');
  if (run.scaling.length > 0) {
    md.push(`**Read cost vs. size** (${c.scalingConnections} conns, ${c.scalingWarmup} s warm-up + ${c.scalingDuration} s, fresh processes per size):`);
    md.push('');
    md.push('| markets | service p50 ms | service p99 ms | service req/s | baseline p50 ms | baseline p99 ms | baseline req/s |');
    md.push('|--:|--:|--:|--:|--:|--:|--:|');
    for (const s of run.scaling) {
      md.push(`| ${fmtInt(s.markets)} | ${fmtMs(s.service.latencyMs.p50)} | ${fmtMs(s.service.latencyMs.p99)} | ${fmtInt(s.service.reqPerSec)} | ${fmtMs(s.baseline.latencyMs.p50)} | ${fmtMs(s.baseline.latencyMs.p99)} | ${fmtInt(s.baseline.reqPerSec)} |`);
    }
    md.push('');
  }
  md.push('**Targets**:');
  md.push('');
  for (const t of run.targets) md.push(`- ${t.met ? '✅ met' : '❌ not met'}: ${t.name}: ${t.detail}`);
  md.push('');
  return md.join('\n');
}

/** Prepends this run's section to docs/benchmarks.md, keeping the last KEEP_RUNS. */
export async function writeDocs(path, run) {
  let text = existsSync(path) ? await readFile(path, 'utf8') : `# Benchmarks\n\n${START}\n${END}\n`;
  if (!text.includes(START) || !text.includes(END)) text = `${text.trimEnd()}\n\n## Runs\n\n${START}\n${END}\n`;
  const head = text.slice(0, text.indexOf(START) + START.length);
  const tail = text.slice(text.indexOf(END));
  const inside = text.slice(head.length, text.indexOf(END));
  const previous = inside.split(RUN_MARK).slice(1).map((section) => `${RUN_MARK}${section.trim()}\n`);
  const sections = [formatMarkdown(run), ...previous].slice(0, KEEP_RUNS);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${head}\n\n${sections.join('\n')}\n${tail}`);
}

/** bench/results/<id>.json and bench/results/latest.json. */
export async function writeResults(dir, run) {
  await mkdir(dir, { recursive: true });
  const json = `${JSON.stringify(run, null, 2)}\n`;
  const file = join(dir, `${run.id}.json`);
  await writeFile(file, json);
  await writeFile(join(dir, 'latest.json'), json);
  return file;
}

const notIdle = (run) => (run.machine.cpuBusyAtStartPct ?? 0) > 15 || run.machine.loadAverageAtStart[0] > run.machine.cores;
const serversOnOtherNode = (run) => run.machine.serverNode && run.machine.serverNode !== run.machine.node;
const sum = (object) => Object.values(object ?? {}).reduce((a, b) => a + b, 0);
const pad = (value, width) => String(value).padEnd(width);
const padL = (value, width) => String(value).padStart(width);
const fmtInt = (value) => (typeof value === 'number' ? value.toLocaleString('en-US') : String(value));
const fmtMs = (value) => (value == null ? '-' : value.toFixed(2));
const statusText = (byStatus) =>
  Object.entries(byStatus ?? {}).sort().map(([status, count]) => `${status} ${fmtInt(count)}`).join(', ');
