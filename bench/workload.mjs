// bench/workload.mjs: what the loads send. The public read's two key sets (hot: the records
// partners poll, cycled; cold: any market, uniformly), the dispute submissions (each a distinct
// resolved market), the checks on their answers, and the market_item N answers.
import { requireDist, withClient } from './db.mjs';

export const readPath = ({ source, slug }) =>
  `/oracle/markets/public?slug=${encodeURIComponent(slug)}&source=${encodeURIComponent(source)}`;

/** The hot set: `count` distinct existing markets in a random (seeded, repeatable) order. */
export function sampleHot(url, count) {
  return withClient(url, async (client) => {
    await client.query('SELECT setseed(0.42)');
    const { rows } = await client.query('SELECT id, source, slug, status FROM markets ORDER BY random() LIMIT $1', [count]);
    return rows;
  });
}

/**
 * The cold set: up to `limit` markets drawn uniformly from all of them, as request paths in
 * random order (all of them at 100k; the limit bounds the runner's memory at 1M). The list is
 * walked once across every cold load of the run, so no load repeats another's markets until it
 * wraps; picking from a prepared list keeps the load generator's own cost per request low.
 */
export async function coldPaths(url, limit) {
  return withClient(url, async (client) => {
    await client.query('SELECT setseed(0.73)');
    const { rows } = await client.query('SELECT source, slug FROM markets ORDER BY random() LIMIT $1', [limit]);
    return rows.map(readPath);
  });
}

/**
 * Requests for autocannon: GET the next path of `cursor` each time (a shared cursor, so that
 * 50 connections walk one list). `origin`: an Origin header on every request, as a browser
 * partner sends it; with CORS on, the service then really produces its CORS headers.
 */
export function readRequests(paths, { origin, cursor = { next: 0 } }) {
  return [{
    method: 'GET',
    headers: origin ? { origin } : {},
    setupRequest: (request) => ({ ...request, path: paths[cursor.next++ % paths.length] }),
  }];
}
export const EMPTY_MARKETS = '{"code":0,"msg":"success","data":{"markets":[]';
export const readCheck = (body) => (body.startsWith(EMPTY_MARKETS) ? 'no market in the answer' : null);

/**
 * For N: the market_item (JSON text) of the hot set whose serialized size is nearest the hot
 * set's mean, so that N's constant costs what an average hot record costs to send.
 */
export async function nestItem(url, hot) {
  const { MARKET_ITEM_JSON } = requireDist('markets/market-item.js');
  const { rows } = await withClient(url, (client) =>
    client.query(`SELECT ${MARKET_ITEM_JSON} AS item FROM markets m WHERE m.id = ANY($1::bigint[])`, [hot.map((m) => m.id)]));
  const texts = rows.map((row) => JSON.stringify(row.item));
  const meanBytes = Math.round(texts.reduce((total, text) => total + Buffer.byteLength(text), 0) / texts.length);
  const nearest = texts.reduce((best, text) =>
    (Math.abs(Buffer.byteLength(text) - meanBytes) < Math.abs(Buffer.byteLength(best) - meanBytes) ? text : best));
  return { json: nearest, bytes: Buffer.byteLength(nearest), meanBytes };
}

/**
 * Resolved markets handed out once each, across every dispute load of the run (warm-ups too).
 * Once they run out, the last one is handed out again: those requests answer 4091 and show up
 * as failed answers, never as speed.
 */
export function disputePool(markets) {
  let next = 0;
  let overflow = 0;
  return {
    available: markets.length,
    next() {
      if (next < markets.length) return markets[next++];
      overflow++;
      return markets[markets.length - 1];
    },
    get used() {
      return Math.min(next, markets.length);
    },
    usedIds() {
      return markets.slice(0, Math.min(next, markets.length)).map((market) => market.id);
    },
    get overflow() {
      return overflow;
    },
  };
}

const REASONS = [
  'The official source was corrected after the close; the corrected figure is below the threshold, so the verdict should be the other one.',
  'The venue published an errata notice within the challenge window; the corrected settlement print is on the other side of the threshold, so the market should resolve the other way.',
  'Several of our users report that the resolution source shown in the market rules is not the one used for this verdict. The rules name the primary venue first and its closing print differs from the aggregator figure quoted in the reasoning. Please re-check against the primary venue and its archived page.',
];

/** Each request a distinct market; with `idempotencyKeys`, each with an Idempotency-Key of its own, as a careful partner files. */
export function disputeRequests(pool, keys, { idempotencyKeys = false } = {}) {
  let sequence = 0;
  const run = Math.random().toString(36).slice(2);
  return [{
    method: 'POST',
    setupRequest: (request) => {
      const market = pool.next();
      const n = sequence++;
      return {
        ...request,
        path: '/oracle/markets/dispute/submit',
        headers: {
          'content-type': 'application/json',
          'x-api-key': keys[market.source],
          ...(idempotencyKeys ? { 'idempotency-key': `bench-${run}-${n}` } : {}),
        },
        body: JSON.stringify({
          market_id: Number(market.id),
          submitter_id: `bench-user-${n}`,
          submitter_name: `Bench User ${n % 100}`,
          submitter_selection: market.verdict === 'YES' ? 'NO' : 'YES',
          reason_text: REASONS[n % REASONS.length],
          submitted_at: new Date().toISOString(),
        }),
      };
    },
  }];
}
export const disputeCheck = (body) => (body.includes('"dispute_id":') ? null : 'no dispute_id in the answer');
