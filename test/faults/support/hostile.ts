import { expect } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import type { DataSource } from 'typeorm';
import { InnocentClient, type InnocentSample, ordinaryRequests } from './innocent';
import { type OneServer, startOneServer } from './one-server';
import { disputeBody, type SeededMarket } from './seed';
import type { ServerProcess } from './server-process';

/**
 * The server's resident memory may never pass this, whatever a client does: the memory
 * docs/operations.md tells ops to give an instance. (V8's heap is capped far below it, so a
 * client that makes work pile up crashes the process, which underAttack also checks; the same
 * attack peaked anywhere from 167 to 203 MB from run to run, so 200 MB failed one run in four.)
 */
export const RSS_CAP_MB = 256;

/** Peak resident memory of process `pid` since its start or the last resetPeakRss (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** Starts a new peak: Linux resets VmHWM to the current RSS on "5" written to clear_refs. */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** The sum of a metric's series whose labels include `labels`, read from /metrics. */
export async function metricValue(server: ServerProcess, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await metricsText(server);
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    if (Object.entries(labels).every(([label, value]) => match[2]?.includes(`${label}="${value}"`))) sum += Number(match[3]);
  }
  return sum;
}

async function metricsText(server: ServerProcess): Promise<string> {
  const answer = await server.metricsHttp.request('GET', '/metrics', { timeoutMs: 5_000 });
  if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status} ${answer.error ?? ''}`);
  return answer.body as string;
}

/** No request of the server's whole life was answered 5000 (its own count, by envelope code). */
export async function expectNo5000(server: ServerProcess): Promise<void> {
  expect(await metricValue(server, 'oracle_http_requests_total', { code: '5000' })).toBe(0);
}

/** Locks `marketId`'s row in a transaction of the suite's own; release() rolls it back. */
export async function lockMarket(dataSource: DataSource, marketId: number): Promise<{ release(): Promise<void> }> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    await runner.query('SELECT id FROM markets WHERE id = $1 FOR UPDATE', [marketId]);
  } catch (error) {
    await runner.release();
    throw error;
  }
  return {
    release: async () => {
      await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    },
  };
}

/** The server's error-level lines so far (an unexpected failure, or an answer 5xx). */
export function errorLines(server: ServerProcess): Promise<string[]> {
  return server.linesMatching((line) => line.includes('"level":50'), 0);
}

export interface HostileServer extends OneServer {
  /** A resolved market whose record is cached, and one with a dispute filed (a next one is 4091). */
  cached: SeededMarket;
  disputed: SeededMarket;
  /** Sends the ordinary requests (ordinaryRequests) from 127.0.0.2. */
  innocent: InnocentClient;
  /** Registers what an attack opened (connections, clients), for stop(). */
  track<T extends { close(): void }>(...opened: T[]): T[];
  /** Closes what was tracked, the innocent client, the server and the database. */
  stop(): Promise<void>;
}

/** Files the dispute that makes `market` answer 4091 to the next. */
export async function fileDispute(server: ServerProcess, market: SeededMarket): Promise<void> {
  const filed = await server.http.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': market.apiKey }, body: disputeBody(market.id) });
  expect(filed.body.code).toBe(0);
}

/** A server and its database (startOneServer) with one partner's `perPartner` resolved markets, one of them disputed. */
export async function startHostileServer(options: Parameters<typeof startOneServer>[0]): Promise<HostileServer> {
  const started = await startOneServer({ perPartner: 2, ...options });
  const [cached, disputed] = started.markets;
  const innocent = new InnocentClient(started.server, ordinaryRequests(cached, disputed));
  const opened: { close(): void }[] = [innocent];
  const stop = async () => {
    for (const thing of opened) thing.close();
    await started.server.stop();
    await started.postgres.destroy();
  };
  try {
    await fileDispute(started.server, disputed);
  } catch (error) {
    await stop();
    throw error;
  }
  const track = <T extends { close(): void }>(...things: T[]) => (opened.push(...things), things);
  return { ...started, cached, disputed, innocent, track, stop };
}

/** "3 x 0, 5 x 4290": how many answers had each envelope code. */
export function countCodes(bodies: { code?: unknown }[]): string {
  const counts = new Map<string, number>();
  for (const body of bodies) counts.set(String(body?.code), (counts.get(String(body?.code)) ?? 0) + 1);
  return [...counts].map(([code, count]) => `${count} x ${code}`).join(', ');
}

export interface AttackFigures<T> {
  outcome: T;
  before: InnocentSample[];
  during: InnocentSample[];
  peakRssMb: number;
  /** One line: the innocent client's latency before and during, and the peak RSS. */
  summary: string;
}

/**
 * Runs `attack` while the innocent client sends its ordinary requests, and asserts what must
 * hold under any attack: the server process is the same live one, its peak RSS stays under
 * RSS_CAP_MB, and the innocent client got its normal answers, at p99 within
 * max(250 ms, 10x its p99 before the attack), or within `p99BoundMs` where the attack saturates the CPU.
 */
export async function underAttack<T>(
  server: ServerProcess,
  innocent: InnocentClient,
  attack: () => Promise<T>,
  p99BoundMs?: number,
): Promise<AttackFigures<T>> {
  const before = await innocent.measure(40);
  resetPeakRss(server.pid);
  innocent.start();
  let outcome: T;
  let during: InnocentSample[];
  try {
    outcome = await attack();
  } finally {
    during = await innocent.stop();
  }
  if (!server.running) throw new Error(`${server.name} died during the attack\n${server.logs()}`);
  const peak = peakRssMb(server.pid);
  expect(peak).toBeLessThan(RSS_CAP_MB);
  const wrong = [...before, ...during].filter((x) => x.result.body?.code !== x.request.code);
  expect(wrong.map((x) => `${x.request.label}: ${x.result.status} ${x.result.error ?? JSON.stringify(x.result.body)}`)).toEqual([]);
  expect(during.length).toBeGreaterThanOrEqual(5);
  const p99 = (samples: InnocentSample[]) => percentile(samples.map((x) => x.result.ms), 99);
  expect(p99(during)).toBeLessThan(p99BoundMs ?? Math.max(250, 10 * p99(before)));
  const figures = (samples: InnocentSample[]) =>
    `p50 ${percentile(samples.map((x) => x.result.ms), 50).toFixed(1)} / p99 ${p99(samples).toFixed(1)} / max ${Math.max(...samples.map((x) => x.result.ms)).toFixed(1)} ms`;
  const summary =
    `innocent client before: ${figures(before)} (${before.length}); during: ${figures(during)} (${during.length}); ` +
    `server peak RSS ${peak.toFixed(0)} MB`;
  return { outcome, before, during, peakRssMb: peak, summary };
}
