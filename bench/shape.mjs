// bench/shape.mjs: `npm run bench:shape`. What Nest on Express charges for the *shape* of a
// request pipeline, before any of its layers does work.
//
// N (bench/nest-server.mjs) is started several times with PIPELINE_SHAPE set: N itself, N with
// the service's shape (as many middlewares, global guards, interceptors and pipes as
// src/app.module.ts registers for a public read), and N with one kind of layer at a time, every
// layer a no-op. Each is loaded like the bench's hot read (c=50, interleaved rounds, a record of
// the hot set's mean size), and its req/s and CPU per request set beside N's. The distance
// between N and "the service's shape" is the part of the service's gap to N that no layer of its
// own can remove: it is the framework running empty layers. No database (~2.5 min).
//
//   npm run bench:shape                       # 2 rounds of 6 s per shape
//   node bench/shape.mjs --seconds 8 --rounds 3
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { combine, measure } from './load.mjs';
import { killAllChildren, SERVICE_SHAPE, serverNodeVersion, startNest } from './servers.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const SECONDS = Number(flag('--seconds', '6'));
const ROUNDS = Number(flag('--rounds', '2'));
const CONNECTIONS = Number(flag('--connections', '50'));

const SHAPES = [
  { shape: '0,0,0,0', name: 'N (no layers)' },
  { shape: SERVICE_SHAPE, name: "the service's shape, every layer a no-op" },
  { shape: '6,0,0,0', name: '6 middlewares (the edge as separate ones)' },
  { shape: '2,0,0,0', name: '2 middlewares' },
  { shape: '0,1,0,0', name: '1 global guard' },
  { shape: '0,0,1,0', name: '1 global interceptor' },
  { shape: '0,0,0,1', name: '1 global pipe' },
  { shape: '1,1,1,1', name: 'one of each' },
];

// A market_item of about the hot set's mean size (1,094 bytes in the recorded runs).
const ITEM = JSON.stringify({
  id: 17841,
  source: 'betfolio',
  slug: 'will-trx-etf-inflows-top-5bn-by-2025-11-18-45b1',
  status: 'resolved',
  verdict: 'YES',
  confidence: 'high',
  resolved_at: '2026-10-26T22:20:15.000Z',
  reasoning: 'Settled from the issuer filings and two independent price feeds. '.repeat(10).trim(),
  proofs: [
    { chain: 'base', tx_hash: `0x${'4f'.repeat(32)}`, position: 0 },
    { chain: 'bsc', tx_hash: `0x${'a3'.repeat(32)}`, position: 1 },
  ],
});

const log = (message) => process.stderr.write(`[shape] ${message}\n`);
process.on('exit', () => killAllChildren('SIGKILL'));
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => process.exit(130));

async function main() {
  const logDir = await mkdtemp(join(tmpdir(), 'oracle-shape-'));
  log(`Node ${serverNodeVersion()}, c=${CONNECTIONS}, ${ROUNDS} rounds of ${SECONDS} s, a ${ITEM.length}-byte record, logs in ${logDir}`);
  const servers = [];
  for (const [index, { shape }] of SHAPES.entries()) {
    servers.push(await startNest({ marketItem: ITEM, shape, logFile: join(logDir, `shape-${index}.log`) }));
  }
  const requests = [{ method: 'GET', path: '/oracle/markets/public?source=betfolio&slug=will-trx-etf-inflows-top-5bn-by-2025-11-18-45b1' }];
  const load = (server, warmup) => measure({
    url: server.url, connections: CONNECTIONS, duration: SECONDS, warmup, requests, label: server.name,
    cpu: () => server.cpuSeconds(),
  });
  const rounds = SHAPES.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating order, so that no shape always runs first or last in a round.
    const order = SHAPES.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const stats = await load(servers[index], round === 0 ? 3 : 1);
      rounds[index].push(stats);
      log(`${SHAPES[index].shape} round ${round + 1}: ${stats.reqPerSec} req/s, ${stats.cpuUsPerReq} µs CPU/request, p99 ${stats.latencyMs.p99} ms`);
    }
  }
  await Promise.all(servers.map((server) => server.stop()));

  const rows = rounds.map(combine);
  const signed = (us) => (us < 0 ? `−${-us}` : `+${us}`);
  const [n] = rows;
  const lines = [
    `| pipeline (middlewares, guards, interceptors, pipes) | req/s | × N | CPU µs/request | over N | p99 ms |`,
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((row, index) => `| ${SHAPES[index].name} (${SHAPES[index].shape}) | ${row.reqPerSec.toLocaleString('en-US')} | ` +
      `${(row.reqPerSec / n.reqPerSec).toFixed(2)}× | ${row.cpuUsPerReq} | ${signed(row.cpuUsPerReq - n.cpuUsPerReq)} | ${row.latencyMs.p99} |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const failed = rows.reduce((total, row) => total + row.codeNonZero + row.errors + row.non2xx, 0);
  if (failed > 0) throw new Error(`${failed} answers were not the constant envelope`);
}

main().catch((error) => {
  log(`FAILED: ${error?.stack ?? error}`);
  killAllChildren();
  process.exit(1);
});
