// bench/baseline-server.mjs: the ceiling for Node + PostgreSQL on this machine.
//
// A bare node:http + pg server answering GET /oracle/markets/public?slug=&source= with the
// service's exact bytes, from the same tables, with the same SQL for the record: the market_item
// JSON is MARKET_ITEM_JSON imported from the compiled service (dist/markets/market-item.js), run
// as a NAMED statement (pool.query({ name, text, values }): PostgreSQL parses and plans it once
// per connection) on a pg Pool of the service's default size, one statement per request (the
// service reads the records it misses in one turn of the event loop with one statement). No
// framework, no logging, keep-alive on (Node's default). It normalizes the parameters as the
// service does (trim; the slug also loses leading and trailing '/') and answers 4100/4101 for a
// missing slug/source; everything else it does not need is left out on purpose (no 4000
// checks, rate limits, security headers, request ids, metrics): this is what the service is
// measured against.
//
//   DATABASE_URL=postgres://… PORT=3100 [DB_POOL_SIZE=10] node bench/baseline-server.mjs
//
// GET /health/ready answers 200 once the pool can run a query (the runner waits on it).
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const require = createRequire(import.meta.url);
// BENCH_DIST: the runner's snapshot of dist/ (the same files the service it runs beside uses).
const { MARKET_ITEM_JSON } = require(join(process.env.BENCH_DIST || fileURLToPath(new URL('../dist/', import.meta.url)), 'markets/market-item.js'));

// The service's record for one (source, slug) (src/markets/markets.service.ts PUBLIC_MARKET).
export const PUBLIC_MARKET_SQL = `SELECT ${MARKET_ITEM_JSON} AS item FROM markets m WHERE m.source = $1 AND m.slug = $2`;
const STATEMENT = 'baseline_public_market';

const url = process.env.DATABASE_URL;
const port = Number(process.env.PORT || 3100);
// The runner passes the service's default (dist/config/environment.js) explicitly.
const poolSize = Number(process.env.DB_POOL_SIZE || 10);
if (!url) {
  console.error('DATABASE_URL is required');
  process.exit(2);
}

const pool = new pg.Pool({ connectionString: url, max: poolSize, application_name: 'bench-baseline' });
pool.on('error', () => {}); // an idle client's error must not kill the ceiling mid-run

const SLUG_REQUIRED = '{"code":4100,"msg":"slug is required","detail":"slug is required"}';
const SOURCE_REQUIRED = '{"code":4101,"msg":"source is required","detail":"source is required"}';
const NOT_FOUND = '{"code":4044,"msg":"not found","detail":"not found"}';
const INTERNAL = '{"code":5000,"msg":"internal error","detail":"internal error"}';
const PREFIX = '{"code":0,"msg":"success","data":{"markets":[';
const SUFFIX = ']}}';

function send(res, status, body, type = 'application/json; charset=utf-8') {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer(async (req, res) => {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  if (req.method !== 'GET') return send(res, 200, NOT_FOUND);
  if (path === '/oracle/markets/public') {
    const params = new URLSearchParams(q < 0 ? '' : req.url.slice(q + 1));
    const slug = (params.get('slug') ?? '').trim().replace(/^\/+|\/+$/g, '').trim();
    const source = (params.get('source') ?? '').trim();
    if (slug === '') return send(res, 200, SLUG_REQUIRED);
    if (source === '') return send(res, 200, SOURCE_REQUIRED);
    try {
      const { rows } = await pool.query({ name: STATEMENT, text: PUBLIC_MARKET_SQL, values: [source, slug] });
      let body = PREFIX;
      for (let i = 0; i < rows.length; i++) body += (i === 0 ? '' : ',') + JSON.stringify(rows[i].item);
      return send(res, 200, body + SUFFIX);
    } catch {
      return send(res, 200, INTERNAL);
    }
  }
  if (path === '/health/ready' || path === '/health/live') {
    try {
      await pool.query('SELECT 1');
      return send(res, 200, '{"status":"ok"}');
    } catch {
      return send(res, 503, '{"status":"error"}');
    }
  }
  return send(res, 200, NOT_FOUND);
});
server.listen(port, '127.0.0.1');

const stop = () => {
  server.close();
  server.closeAllConnections?.();
  pool.end().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 3000).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
