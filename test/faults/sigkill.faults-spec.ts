import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FaultDatabase, FaultPostgres } from './support/fault-postgres';
import { startOneServer } from './support/one-server';
import { type HttpResult, runPool } from './support/http-client';
import { disputeBody, marketStates, type SeededMarket, waitForNoServerSessions } from './support/seed';
import { ServerProcess } from './support/server-process';

const PARTNERS = 3;
const MARKETS_PER_PARTNER = 100;
const SUBMISSIONS_PER_MARKET = 2;
const CONCURRENCY = 40;
/** The server is SIGKILLed once this many answers have arrived (of 600 submissions). */
const KILL_AFTER_ANSWERS = 150;

/**
 * SIGKILL while disputes are being filed: whatever was cut off, the database never holds a
 * half-done submission. Every market is either untouched (`resolved`, no dispute) or `disputed`
 * with exactly one dispute, and every acknowledged dispute is there.
 */
describe('faults: SIGKILL while disputes are being filed', () => {
  let postgres: FaultPostgres;
  let database: FaultDatabase;
  let server: ServerProcess | undefined;
  let restarted: ServerProcess | undefined;
  let markets: SeededMarket[];

  beforeAll(async () => {
    ({ postgres, database, server, markets } = await startOneServer({
      name: 'sigkill-server',
      partners: PARTNERS,
      perPartner: MARKETS_PER_PARTNER,
    }));
  });

  afterAll(async () => {
    await server?.stop();
    await restarted?.stop();
    await postgres?.destroy();
  });

  it('leaves every market untouched or disputed with exactly one dispute', async () => {
    const s = server!;
    // A market's submissions side by side: they race for its row lock when the kill lands.
    const submissions: { market: SeededMarket; n: number }[] = [];
    for (const market of markets) for (let n = 0; n < SUBMISSIONS_PER_MARKET; n++) submissions.push({ market, n });
    let answers = 0;
    let killedAt = 0;
    const startedAt = performance.now();
    const results = await runPool(
      submissions.map(({ market, n }) => async (): Promise<HttpResult> => {
        const result = await s.http.request('POST', '/oracle/markets/dispute/submit', {
          headers: { 'x-api-key': market.apiKey },
          body: disputeBody(market.id, n),
          timeoutMs: 10_000,
        });
        if (result.status === 200 && ++answers === KILL_AFTER_ANSWERS) {
          killedAt = performance.now();
          s.signal('SIGKILL');
        }
        return result;
      }),
      CONCURRENCY,
    );
    const exit = await s.waitExit(5_000);
    expect(exit?.signal).toBe('SIGKILL');

    const answered = results.filter((r) => r.status === 200);
    const cutOff = results.filter((r) => r.status === 0);
    // Every request either got an answer or was cut off by the kill (no HTTP error status).
    expect(answered.length + cutOff.length).toBe(results.length);
    // Cut off: in flight when the process died, or refused afterwards.
    const cutOffErrors = new Set(cutOff.map((r) => r.error));
    for (const error of cutOffErrors) expect(['ECONNRESET', 'ECONNREFUSED', 'ABORTED', 'EPIPE']).toContain(error);
    // Of the answers: a dispute filed, or the second submission for a market that has one.
    for (const r of answered) expect([0, 4091]).toContain(r.body.code);
    const acknowledged = new Map<number, number>(); // market id -> dispute id
    submissions.forEach(({ market }, i) => {
      const r = results[i];
      if (r.status === 200 && r.body.code === 0) {
        expect(acknowledged.has(market.id)).toBe(false);
        acknowledged.set(market.id, r.body.data.dispute_id);
      }
    });
    // The test means something only if some submissions succeeded and some were cut off mid-stream.
    expect(acknowledged.size).toBeGreaterThan(20);
    expect(cutOff.length).toBeGreaterThan(20);
    const inFlightAtKill = cutOff.filter((r) => r.startedAt < killedAt).length;
    expect(inFlightAtKill).toBeGreaterThan(0);

    // PostgreSQL rolls back the dead server's open transactions as it notices the closed sockets.
    await waitForNoServerSessions(database.dataSource, database.name, 10_000);
    const states = await marketStates(
      database.dataSource,
      markets.map((m) => m.id),
    );
    expect(states.size).toBe(markets.length);
    let untouched = 0;
    let disputed = 0;
    for (const market of markets) {
      const state = states.get(market.id)!;
      // Never a dispute on a `resolved` market, never a `disputed` market without exactly one.
      if (state.status === 'resolved') {
        expect({ id: market.id, ...state }).toEqual({ id: market.id, status: 'resolved', disputes: 0 });
        untouched++;
      } else {
        expect({ id: market.id, ...state }).toEqual({ id: market.id, status: 'disputed', disputes: 1 });
        disputed++;
      }
    }
    // Every acknowledged dispute is durable, on its market.
    const rows: { id: string; market_id: string }[] = await database.dataSource.query(
      'SELECT id, market_id FROM disputes WHERE market_id = ANY($1::bigint[])',
      [markets.map((m) => m.id)],
    );
    const disputeOfMarket = new Map(rows.map((row) => [Number(row.market_id), Number(row.id)]));
    for (const [marketId, disputeId] of acknowledged) expect(disputeOfMarket.get(marketId)).toBe(disputeId);
    expect(untouched).toBeGreaterThan(0);
    expect(rows.length).toBe(disputed);

    // A new instance on the same database carries on where the dead one stopped.
    restarted = await ServerProcess.start({ databaseUrl: database.url, name: 'sigkill-restarted' });
    const untouchedMarket = markets.find((m) => states.get(m.id)!.status === 'resolved')!;
    const disputedMarket = markets.find((m) => states.get(m.id)!.status === 'disputed')!;
    const fresh = await restarted.http.request('POST', '/oracle/markets/dispute/submit', {
      headers: { 'x-api-key': untouchedMarket.apiKey },
      body: disputeBody(untouchedMarket.id, 9),
    });
    expect(fresh.body).toEqual({ code: 0, msg: 'success', data: { dispute_id: expect.any(Number) } });
    const again = await restarted.http.request('POST', '/oracle/markets/dispute/submit', {
      headers: { 'x-api-key': disputedMarket.apiKey },
      body: disputeBody(disputedMarket.id, 9),
    });
    expect(again.body).toEqual({ code: 4091, msg: 'market already has a dispute', detail: 'market already has a dispute' });

    console.log(
      [
        `SIGKILL while disputes are filed (${markets.length} resolved markets, ${PARTNERS} partners, ${results.length} submissions, ${CONCURRENCY} in flight):`,
        `  killed ${(killedAt - startedAt).toFixed(0)} ms into the stream, after ${KILL_AFTER_ANSWERS} answers`,
        `  answered: ${answered.length} (${acknowledged.size} code 0, ${answered.length - acknowledged.size} code 4091)`,
        `  cut off: ${cutOff.length} (${inFlightAtKill} in flight at the kill; errors ${[...cutOffErrors].join(', ')})`,
        `  database: ${disputed} markets disputed with exactly one dispute, ${untouched} untouched, ` +
          `${disputed - acknowledged.size} committed but not acknowledged; 0 inconsistent`,
      ].join('\n'),
    );
  });
});
