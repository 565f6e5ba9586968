import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import type { FaultDatabase, FaultPostgres } from './support/fault-postgres';
import { lockMarket } from './support/hostile';
import { startOneServer } from './support/one-server';
import { disputeBody, type SeededMarket } from './support/seed';
import { RawConnection, rawRequest } from './support/raw-http';
import { ADMIN_MASTER_KEY, type ServerProcess } from './support/server-process';

/**
 * The request log of the real built server, read from its stdout as ops would: one JSON line
 * per request with the fields the README promises, and no credential anywhere in the output.
 */
describe('faults: request logs', () => {
  let postgres: FaultPostgres;
  let database: FaultDatabase;
  let server: ServerProcess | undefined;
  let dataSource: DataSource;
  let market: SeededMarket;
  let another: SeededMarket;

  beforeAll(async () => {
    let markets: SeededMarket[];
    ({ postgres, database, server, dataSource, markets } = await startOneServer({ name: 'logs-server', perPartner: 2, env: { LOG_LEVEL: 'info', TRUST_PROXY: 'loopback' } }));
    [market, another] = markets;
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
        headers: { cookie, 'x-request-id': 'ops-trace-1', 'x-forwarded-for': '203.0.113.7' },
      }),
      await s.http.request('POST', '/oracle/markets/dispute/submit', {
        headers: { 'x-api-key': market.apiKey, cookie },
        body: disputeBody(market.id),
      }),
      await s.http.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': wrongKey }, body: {} }),
      await s.http.request('GET', '/admin/disputes', { headers: { authorization: `Bearer ${ADMIN_MASTER_KEY}` } }),
    ];
    expect(sent.map((response) => response.body.code)).toEqual([0, 0, 4011, 0]);
    // Lines are written in batches: wait for the four.
    const requestLines = (await s.linesMatching((line) => line.includes('"responseTime":') && !line.includes('/health/'), 4)).map(
      (line) => JSON.parse(line) as Record<string, any>,
    );
    expect(requestLines).toHaveLength(4);
    const [read, filed, refused, queue] = requestLines;
    for (const line of requestLines) {
      expect(line).toMatchObject({ level: 30, reqId: expect.any(String), responseTime: expect.any(Number), route: expect.any(String) });
      expect(line.req).toEqual({ id: line.reqId, method: expect.any(String), url: expect.any(String), remoteAddress: expect.any(String) });
    }
    // Behind a trusted proxy (TRUST_PROXY): the client's address, and the proxy's as the peer.
    expect(read).toMatchObject({ reqId: 'ops-trace-1', route: '/oracle/markets/public', code: 0, client: '203.0.113.7' });
    expect(read.req.remoteAddress).toMatch(/127\.0\.0\.1$/);
    expect(filed).toMatchObject({ route: '/oracle/markets/dispute/submit', code: 0, partner: market.source, client: '127.0.0.1' });
    expect(refused).toMatchObject({ route: '/oracle/markets/dispute/submit', code: 4011 });
    expect(queue).toMatchObject({ route: '/admin/disputes', code: 0, actor: 'master' });

    const output = s.lines.join('\n');
    for (const secret of [market.apiKey, wrongKey, ADMIN_MASTER_KEY, 'cookie-secret-0123456789', new URL(database.url).password]) {
      if (secret) expect(output).not.toContain(secret);
    }
  });

  it('writes no secret a client put anywhere (query, path, body, other headers), and cuts a long URL', async () => {
    const s = server!;
    const before = s.lines.length;
    const isRequestLine = (line: string) => line.includes('"responseTime":') && !line.includes('/health/');
    const linesBefore = s.lines.filter(isRequestLine).length;
    const anotherKey = another.apiKey;
    const sent = [
      await s.http.request('GET', `/admin/partners?token=${encodeURIComponent(ADMIN_MASTER_KEY)}`),
      await s.http.request('GET', `/admin/partners?q=${ADMIN_MASTER_KEY}&api_key=whatever-it-is`),
      await s.http.request('GET', `/oracle/markets/public?slug=${market.apiKey}&source=${market.source}`),
      await s.http.request('GET', `/oracle/markets/${anotherKey}`),
      await s.http.request('POST', '/oracle/markets/dispute/submit', {
        headers: { 'x-api-key': market.apiKey, 'x-token': anotherKey, authorization: `Bearer ${ADMIN_MASTER_KEY}` },
        body: { ...disputeBody(market.id), submitter_name: anotherKey, api_key: ADMIN_MASTER_KEY },
      }),
      await s.http.request('GET', `/oracle/markets/public?slug=${'s'.repeat(15_000)}&source=${market.source}`),
      // Percent-encoded byte by byte, and as the request's id.
      await s.http.request('GET', `/oracle/markets/public?slug=x&source=${market.source}&k=${[...anotherKey].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')}`),
      await s.http.request('GET', '/nowhere', { headers: { 'x-request-id': anotherKey } }),
    ];
    expect(sent.map((response) => response.body.code)).toEqual([4012, 4012, 0, 4044, 4000, 4000, 4000, 4044]);
    const lines = (await s.linesMatching(isRequestLine, linesBefore + 8)).slice(linesBefore);
    const output = s.lines.slice(before).join('\n');
    for (const secret of [ADMIN_MASTER_KEY, encodeURIComponent(ADMIN_MASTER_KEY), market.apiKey, anotherKey]) expect(output).not.toContain(secret);
    expect(output).toContain('token=[redacted]');
    // The 15 KB URL's line: the URL cut to 512 characters, twice (its url and its message), and the rest of the line.
    const long = lines.find((line) => line.includes('s'.repeat(100)))!;
    expect(long.length).toBeLessThan(2_000);
    expect(long).toContain('more characters)');
  });

  it('logs health probes answered 200 at debug: at info, a probe every few seconds writes nothing', async () => {
    const s = server!;
    const probe = await s.http.request('GET', '/health/live', { headers: { 'x-request-id': 'probe-at-info' } });
    const after = await s.http.request('GET', '/nowhere', { headers: { 'x-request-id': 'after-the-probe' } });
    expect([probe.status, after.body.code]).toEqual([200, 4044]);
    await s.linesMatching((line) => line.includes('after-the-probe'));
    expect(s.lines.filter((line) => line.includes('probe-at-info'))).toEqual([]);
  });

  it('logs what the HTTP parser rejected, under the x-request-id its answer carries', async () => {
    const s = server!;
    const rejected = async (bytes: string) => {
      const connection = await RawConnection.open(s.port);
      connection.write(bytes);
      const [answer] = await connection.readAnswers(1, 3_000);
      connection.close();
      return answer;
    };
    const answers = [
      await rejected('HELLO\r\n\r\n'),
      await rejected('CONNECT a:1 HTTP/1.1\r\nHost: a\r\n\r\n'),
      await rejected(`GET /x HTTP/1.1\r\nHost: a\r\nx-big: ${'b'.repeat(20_000)}\r\n\r\n`),
    ];
    expect(answers.map((answer) => answer.body.code)).toEqual([4000, 4000, 4130]);
    // They had an id that no line named.
    for (const answer of answers) {
      const id = answer.headers['x-request-id'];
      await s.linesMatching((line) => line.includes(`"reqId":"${id}"`));
      expect(lineOf(s, id, 'route')).toMatchObject({ level: 30, route: 'unparsed', code: answer.body.code, req: { id, remoteAddress: expect.any(String) } });
    }
  });

  it('logs an unexpected failure (5000) at error level with its request id and cause, none of which reaches the answer', async () => {
    const s = server!;
    // A schema the code does not expect: the read's query fails in a way nothing maps.
    await dataSource.query('ALTER TABLE proofs RENAME TO proofs_elsewhere');
    try {
      const answer = await s.http.request('GET', `/oracle/markets/public?slug=${another.slug}&source=${another.source}`, {
        headers: { 'x-request-id': 'ops-unexpected' },
      });
      expect(answer.body).toEqual({ code: 5000, msg: 'internal error', detail: 'internal error' });
    } finally {
      await dataSource.query('ALTER TABLE proofs_elsewhere RENAME TO proofs');
    }
    const lines = (await s.linesMatching((line) => line.includes('"ops-unexpected"'), 2)).map((line) => JSON.parse(line) as Record<string, any>);
    const cause = lines.find((line) => line.err);
    expect(cause).toMatchObject({ level: 50, requestId: 'ops-unexpected', err: { message: 'relation "proofs" does not exist', stack: expect.any(String) } });
    expect(lineOf(s, 'ops-unexpected', 'responseTime')).toMatchObject({ level: 50, route: '/oracle/markets/public', code: 5000 });
  });
  it("logs a failure's SQLSTATE and constraint, never the data the database quotes (the failing row, the values)", async () => {
    const s = server!;
    await dataSource.query('ALTER TABLE disputes ADD CONSTRAINT logs_short_names CHECK (length(submitter_name) < 3) NOT VALID');
    try {
      const body = { ...disputeBody(another.id), submitter_name: 'Ann Privateperson', reason_text: 'a private reason' };
      const answer = await s.http.request('POST', '/oracle/markets/dispute/submit', {
        headers: { 'x-api-key': another.apiKey, 'x-request-id': 'ops-private' },
        body,
      });
      expect(answer.body).toEqual({ code: 5000, msg: 'internal error', detail: 'internal error' });
    } finally {
      await dataSource.query('ALTER TABLE disputes DROP CONSTRAINT logs_short_names');
    }
    const lines = await s.linesMatching((line) => line.includes('"ops-private"'), 2);
    expect(lines.join('\n')).not.toMatch(/Privateperson|private reason/);
    const cause = lines.map((line) => JSON.parse(line) as Record<string, any>).find((line) => line.err);
    expect(cause).toMatchObject({ level: 50, err: { code: '23514', constraint: 'logs_short_names', table: 'disputes' } });
  });

  it('says in the line of a 5030 what the database answered (here: its statement or lock timeout, both 2 s)', async () => {
    const s = server!;
    const lock = await lockMarket(dataSource, another.id);
    try {
      const answer = await s.http.request('POST', '/oracle/markets/dispute/submit', {
        headers: { 'x-api-key': another.apiKey, 'x-request-id': 'ops-unavailable' },
        body: disputeBody(another.id),
        timeoutMs: 10_000,
      });
      expect(answer.body).toEqual({ code: 5030, msg: 'service unavailable', detail: 'service unavailable' });
    } finally {
      await lock.release();
    }
    await s.linesMatching((line) => line.includes('"reqId":"ops-unavailable"'), 1);
    expect(lineOf(s, 'ops-unavailable', 'failure')).toMatchObject({
      level: 50,
      code: 5030,
      failure: expect.stringMatching(/^(55P03: canceling statement due to lock timeout|57014: canceling statement due to statement timeout)$/),
    });
  });

  it('logs a request whose client left before any answer as 499, without an HTTP status it never sent', async () => {
    const s = server!;
    const lock = await lockMarket(dataSource, another.id);
    try {
      const client = await RawConnection.open(s.port);
      client.write(rawRequest('POST', '/oracle/markets/dispute/submit', { 'x-api-key': another.apiKey, 'x-request-id': 'ops-left' }, disputeBody(another.id)));
      await waitingForLock(dataSource);
      client.close();
      await s.linesMatching((line) => line.includes('"reqId":"ops-left"'), 1);
    } finally {
      await lock.release();
    }
    const line = lineOf(s, 'ops-left', 'responseTime');
    expect(line).toMatchObject({ level: 30, code: 499, msg: 'POST /oracle/markets/dispute/submit closed before its answer was sent' });
    expect(line).not.toHaveProperty('res');
  });
});

/** Waits until one of the server's statements waits for a lock. */
async function waitingForLock(dataSource: DataSource): Promise<void> {
  for (const deadline = performance.now() + 3_000; performance.now() < deadline; ) {
    const [{ waiting }] = await dataSource.query(
      "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE application_name = 'settlement-oracle' AND wait_event_type = 'Lock'",
    );
    if (waiting > 0) return;
    await sleep(20);
  }
  throw new Error('no statement of the server waited for a lock');
}

/** The one request log line (with `field`) of the request with this id. */
function lineOf(server: ServerProcess, requestId: string, field = 'reqId'): Record<string, any> {
  const lines = server.lines.filter((line) => line.includes(`"reqId":"${requestId}"`) && line.includes(`"${field}":`));
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as Record<string, any>;
}
