import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultDatabase, FaultPostgres } from './support/fault-postgres';
import { startOneServer } from './support/one-server';
import { disputeBody, type SeededMarket } from './support/seed';
import { ADMIN_MASTER_KEY, type ServerProcess } from './support/server-process';

/**
 * The request log of the real built server, read from its stdout as ops would: one JSON line
 * per request with the fields the README promises, and no credential anywhere in the output.
 */
describe('faults: request logs', () => {
  let postgres: FaultPostgres;
  let database: FaultDatabase;
  let server: ServerProcess | undefined;
  let market: SeededMarket;
  let another: SeededMarket;
  let filedByPipeline: SeededMarket;
  let filedAhead: SeededMarket;

  beforeAll(async () => {
    let markets: SeededMarket[];
    ({ postgres, database, server, markets } = await startOneServer({ name: 'logs-server', perPartner: 4, env: { LOG_LEVEL: 'info' } }));
    [market, another, filedByPipeline, filedAhead] = markets;
  });

  afterAll(async () => {
    await server?.stop();
    await postgres?.destroy();
  });

  it('writes one JSON line per request with id, route, code, duration and caller, and no secret', async () => {
    const s = server!;
    const cookie = 'session=cookie-secret-0123456789';
    const wrongKey = 'sok_this-key-is-wrong-but-still-a-secret';
    const sent = [
      await s.http.request('GET', `/oracle/markets/public?slug=${market.slug}&source=${market.source}`, {
        headers: { cookie, 'x-request-id': 'ops-trace-1' },
      }),
      await s.http.request('POST', '/oracle/markets/dispute/submit', {
        headers: { 'x-api-key': market.apiKey, cookie },
        body: disputeBody(market.id),
      }),
      await s.http.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': wrongKey }, body: {} }),
      await s.http.request('GET', '/admin/disputes', { headers: { authorization: `Bearer ${ADMIN_MASTER_KEY}` } }),
    ];
    expect(sent.map((response) => response.body.code)).toEqual([0, 0, 4011, 0]);
    await sleep(200); // the last line is written when its response has finished

    const requestLines = s.lines
      .filter((line) => line.includes('"responseTime":') && !line.includes('/health/'))
      .map((line) => JSON.parse(line) as Record<string, any>);
    expect(requestLines).toHaveLength(4);
    const [read, filed, refused, queue] = requestLines;
    for (const line of requestLines) {
      expect(line).toMatchObject({ level: 30, reqId: expect.any(String), responseTime: expect.any(Number), route: expect.any(String) });
      expect(line.req).toEqual({ id: line.reqId, method: expect.any(String), url: expect.any(String), remoteAddress: expect.any(String) });
    }
    expect(read).toMatchObject({ reqId: 'ops-trace-1', route: '/oracle/markets/public', code: 0 });
    expect(filed).toMatchObject({ route: '/oracle/markets/dispute/submit', code: 0, partner: market.source });
    expect(refused).toMatchObject({ route: '/oracle/markets/dispute/submit', code: 4011 });
    expect(queue).toMatchObject({ route: '/admin/disputes', code: 0, actor: 'master' });

    const output = s.lines.join('\n');
    for (const secret of [market.apiKey, wrongKey, ADMIN_MASTER_KEY, 'cookie-secret-0123456789', new URL(database.url).password]) {
      if (secret) expect(output).not.toContain(secret);
    }
  });

  it('logs a read answered ahead of Express, from the database or the cache, exactly as the pipeline logs it', async () => {
    const s = server!;
    const path = `/oracle/markets/public?slug=${another.slug}&source=${another.source}`;
    const answeredAhead = async () => Number(/oracle_public_fast_path_total (\d+)/.exec((await s.http.request('GET', '/metrics')).body)?.[1]);
    const before = await answeredAhead();
    const read = (url: string, requestId: string) => s.http.request('GET', url, { headers: { 'x-request-id': requestId } });
    const ahead = await read(path, 'ops-read-ahead'); // not cached yet: read from the database
    const cached = await read(path, 'ops-read-cached');
    // With a trailing slash the route is the same to Express, and the fast path leaves it alone.
    const piped = await read(path.replace('?', '/?'), 'ops-read-piped');
    expect([ahead.body.code, cached.body.code, piped.body.code]).toEqual([0, 0, 0]);
    expect(await answeredAhead()).toBe(before + 2);
    await sleep(200);

    const pipelineLine = lineOf(s, 'ops-read-piped');
    for (const requestId of ['ops-read-ahead', 'ops-read-cached']) {
      const fastLine = lineOf(s, requestId);
      expect(Object.keys(fastLine)).toEqual(Object.keys(pipelineLine));
      expect(sameUrl(fastLine)).toEqual(sameUrl(pipelineLine));
      expect(fastLine).toMatchObject({ reqId: requestId, req: { id: requestId, url: path }, route: '/oracle/markets/public', code: 0 });
    }
  });

  it('logs a dispute filed ahead of Express exactly as the pipeline logs it', async () => {
    const s = server!;
    const submit = '/oracle/markets/dispute/submit';
    const answeredAhead = async () => Number(/oracle_dispute_fast_path_total (\d+)/.exec((await s.http.request('GET', '/metrics')).body)?.[1]);
    const before = await answeredAhead();
    // With a query string the route is the same to Express, and the fast path leaves it alone.
    const piped = await s.http.request('POST', `${submit}?via=pipeline`, {
      headers: { 'x-api-key': filedByPipeline.apiKey, 'x-request-id': 'ops-file-piped' },
      body: disputeBody(filedByPipeline.id),
    });
    const ahead = await s.http.request('POST', submit, {
      headers: { 'x-api-key': filedAhead.apiKey, 'x-request-id': 'ops-file-ahead' },
      body: disputeBody(filedAhead.id),
    });
    expect([piped.body.code, ahead.body.code]).toEqual([0, 0]);
    expect(await answeredAhead()).toBe(before + 1);
    await sleep(200);

    const [pipelineLine, fastLine] = [lineOf(s, 'ops-file-piped'), lineOf(s, 'ops-file-ahead')];
    expect(Object.keys(fastLine)).toEqual(Object.keys(pipelineLine));
    expect(sameUrl(fastLine)).toEqual(sameUrl(pipelineLine));
    expect(fastLine).toMatchObject({ req: { url: submit }, route: submit, code: 0, partner: filedAhead.source, msg: `POST ${submit} completed` });
  });
});

/** The one log line of the request with this id. */
function lineOf(server: ServerProcess, requestId: string): Record<string, any> {
  const lines = server.lines.filter((line) => line.includes(`"reqId":"${requestId}"`));
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as Record<string, any>;
}

/** A log line without what differs from one request to the next. */
const varying = (line: Record<string, any>) => ({ ...line, time: 0, reqId: '', req: { ...line.req, id: '' }, responseTime: 0 });

/** A log line without what differs from one request to the next, nor its URL (nor its message, which holds the URL). */
const sameUrl = (line: Record<string, any>) => ({ ...varying(line), req: { ...varying(line).req, url: '' }, msg: '' });
