// bench/checks.mjs: what the runner verifies around the loads, so that the figures compare like
// with like. Before: the service and B answer byte-identical bodies; the CORS service answers
// the same bodies plus its CORS headers; N answers its envelope. After the dispute loads: no
// service serves a stale record.
import { withClient } from './db.mjs';
import { SOURCES } from './seed.mjs';
import { EMPTY_MARKETS, readPath } from './workload.mjs';

const fetchText = async (server, path, headers = {}) => {
  const response = await fetch(server.url + path, { headers });
  return { status: response.status, headers: response.headers, body: await response.text() };
};

/** Fetches every path from both servers; the paths whose status or body differ, described. */
async function diffBodies(a, b, paths, headers) {
  const differences = [];
  let found = 0;
  for (const path of paths) {
    const [x, y] = await Promise.all([fetchText(a, path, headers), fetchText(b, path, headers)]);
    if (x.status !== y.status || x.body !== y.body) {
      let at = 0;
      while (at < x.body.length && x.body[at] === y.body[at]) at++;
      const around = (text) => JSON.stringify(text.slice(Math.max(0, at - 80), at + 120));
      differences.push(`${path} (HTTP ${x.status} vs ${y.status}; first difference at byte ${at}):\n` +
        `  ${a.name}: ${around(x.body)}\n  ${b.name}: ${around(y.body)}`);
    }
    if (x.body.startsWith('{"code":0,') && !x.body.startsWith(EMPTY_MARKETS)) found++;
  }
  return { compared: paths.length, found, differences };
}

/**
 * The baseline must answer exactly what the service answers: byte-compare ~50 stratified
 * markets (every status), the parameter normalization, a miss and the 4100/4101 errors.
 * Throws on any difference: the comparison would be meaningless.
 */
export async function compareBodies(url, service, baseline) {
  const markets = await withClient(url, async (client) => {
    await client.query('SELECT setseed(0.17)');
    const { rows } = await client.query(`
      SELECT source, slug, status FROM (
        SELECT source, slug, status, row_number() OVER (PARTITION BY status ORDER BY random()) AS k
        FROM markets) s
      WHERE k <= 12 ORDER BY status, k`);
    return rows;
  });
  const paths = markets.map(readPath);
  const first = markets[0];
  paths.push(
    `/oracle/markets/public?slug=${encodeURIComponent(` /${first.slug}/ `)}&source=${encodeURIComponent(` ${first.source} `)}`,
    `/oracle/markets/public?slug=no-such-market-anywhere&source=${SOURCES[0]}`,
    `/oracle/markets/public?slug=${encodeURIComponent(first.slug)}&source=no-such-source`,
    `/oracle/markets/public?source=${SOURCES[0]}`,
    '/oracle/markets/public?slug=some-slug',
    '/oracle/markets/public?slug=%20%20&source=x',
    '/oracle/markets/public',
  );
  const { compared, found, differences } = await diffBodies(service, baseline, paths);
  if (differences.length > 0) {
    throw new Error(
      `service and baseline answer differently for ${differences.length} of ${compared} requests; the first:\n${differences[0]}\n` +
      'The baseline must serve the same bytes as the service (same SQL: dist/markets/market-item.js, same envelope).',
    );
  }
  if (found < markets.length) throw new Error(`only ${found} of ${markets.length} sampled markets were found by the service`);
  return { compared, markets: markets.length, statuses: [...new Set(markets.map((m) => m.status))] };
}

/**
 * The CORS service must answer what the service answers, plus the CORS headers for `origin`
 * (else its load would not measure CORS at all). Throws otherwise.
 */
export async function checkCors(service, serviceCors, paths, origin) {
  const { compared, differences } = await diffBodies(serviceCors, service, paths, { origin });
  if (differences.length > 0) throw new Error(`the CORS service answers other bodies than the service:\n${differences[0]}`);
  const { headers } = await fetchText(serviceCors, paths[0], { origin });
  const allowed = headers.get('access-control-allow-origin');
  if (allowed !== origin) {
    throw new Error(`the CORS service answered Access-Control-Allow-Origin ${JSON.stringify(allowed)} to Origin ${origin}: CORS is not on`);
  }
  const withoutCors = (await fetchText(service, paths[0], { origin })).headers.get('access-control-allow-origin');
  if (withoutCors !== null) throw new Error(`the service without CORS_ORIGINS answers Access-Control-Allow-Origin ${withoutCors}`);
  return { compared, allowOrigin: allowed, vary: headers.get('vary') };
}

/** N must answer its envelope with the market_item it was given. Throws otherwise. */
export async function checkNest(nest, item) {
  const { status, body } = await fetchText(nest, '/oracle/markets/public?slug=x&source=y');
  const expected = `{"code":0,"msg":"success","data":{"markets":[${item.json}]}}`;
  if (status !== 200 || body !== expected) {
    throw new Error(`N answered HTTP ${status} ${JSON.stringify(body.slice(0, 200))}, not its envelope of ${item.bytes} bytes`);
  }
  return { bodyBytes: Buffer.byteLength(body), itemBytes: item.bytes, hotMeanItemBytes: item.meanBytes };
}

/**
 * After the dispute loads: markets the read load had fetched while resolved and that the
 * dispute load then moved to disputed must now read the same on `service` as straight from the
 * database (the baseline). A difference means the service served a stale record.
 * Reported, not thrown: the figures are still worth keeping.
 */
export async function checkAfterDisputes(url, service, baseline, readSample, disputedIds) {
  const disputed = new Set(disputedIds.map(String));
  const picked = readSample.filter((m) => m.status === 'resolved' && disputed.has(String(m.id))).slice(0, 50);
  if (picked.length < 50) {
    const more = disputedIds.slice(0, 50 - picked.length).map(String);
    const rows = await withClient(url, async (client) =>
      (await client.query('SELECT id, source, slug FROM markets WHERE id = ANY($1::bigint[])', [more])).rows);
    picked.push(...rows);
  }
  const { compared, differences } = await diffBodies(service, baseline, picked.map(readPath));
  return { service: service.name, compared, previouslyRead: picked.filter((m) => m.status === 'resolved').length, stale: differences.length, first: differences.slice(0, 3) };
}
