import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { countCodes, errorLines, expectNo5000, type HostileServer, metricValue, percentile, startHostileServer, underAttack } from './support/hostile';
import { openConnections, RawConnection, type RawAnswer } from './support/raw-http';

// Shorter than the defaults (10 s, 15 s) so that the suite takes seconds; Node checks them every second.
const HEADERS_TIMEOUT_MS = 3_000;
const REQUEST_TIMEOUT_MS = 4_000;
const CHECK_INTERVAL_MS = 1_000;
const SLOW_UPLOADS = 1_400;
const SLOW_HEADERS = 500;
const OVERSIZED_UPLOADS = 100; // with SLOW_UPLOADS, 1,500 uploads in all
const TRICKLE_EVERY_MS = 400;
// 2,000 connections writing every TRICKLE_EVERY_MS keep both cores of a small machine busy, so
// the innocent client's p99 follows the machine's speed (110-730 ms seen) more than its p99
// before; and when their deadline comes, all of them are answered in one turn of the event loop
// (up to 1.5 s seen on a slow host). Served meanwhile means before the slow clients' shortest
// deadline: an innocent held until the slow clients are closed would wait HEADERS_TIMEOUT_MS.
const INNOCENT_P99_BOUND_MS = 2_000;

const TIMED_OUT = { code: 4000, msg: 'invalid request', detail: 'the request did not arrive in time' };

/** A rejection answered in the envelope: HTTP 200, the exact body, a request id, and the connection closed after it. */
function expectEnvelopeAndClose(connection: RawConnection, answer: RawAnswer | undefined, body: unknown): void {
  expect(answer?.status).toBe(200);
  expect(answer?.body).toEqual(body);
  expect(answer?.headers.connection).toBe('close');
  expect(answer?.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(connection.open).toBe(false);
}

/**
 * Clients that send their requests slowly, at scale (uploads that never finish, headers that
 * never end), and requests Node's HTTP parser rejects: each is answered in the envelope (HTTP
 * 200, 4000 or 4130, Connection: close) once it is over its deadline, and the server stays
 * responsive and within its memory meanwhile.
 */
describe('faults: slow clients and requests the HTTP parser rejects', () => {
  let h: HostileServer;

  beforeAll(async () => {
    // The uploads share one key, whose dispute rate limit (checked before a body is read) would
    // refuse all but 300 of them at once: this suite is about clients kept to their deadlines.
    const env = {
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      RATE_LIMIT_DISPUTE_PER_MINUTE: '100000',
    };
    h = await startHostileServer({ name: 'slow-clients-server', env });
  });

  afterAll(async () => {
    await h?.stop();
  });

  /**
   * Writes `start` on each connection, then `trickle` every TRICKLE_EVERY_MS until each is closed
   * or `timeoutMs` passed. Resolves to when each was closed, in ms after the first write.
   */
  async function sendSlowly(connections: RawConnection[], start: string, trickle: string, timeoutMs: number): Promise<number[]> {
    const startedAt = performance.now();
    for (const connection of connections) {
      connection.startReading();
      connection.write(start);
    }
    while (connections.some((c) => c.open) && performance.now() - startedAt < timeoutMs) {
      await sleep(TRICKLE_EVERY_MS);
      for (const connection of connections) if (connection.open) connection.write(trickle);
    }
    return connections.map((c) => (c.closedAt ?? Infinity) - startedAt);
  }

  it(`answers ${SLOW_UPLOADS} slow uploads, ${SLOW_HEADERS} slow headers and ${OVERSIZED_UPLOADS} oversized slow uploads 4000 once over their deadlines, serving others meanwhile`, async () => {
    const s = h.server;
    // From two addresses: 2,000-byte bodies from one would pass its share of the body budget
    // (2 MiB) and be refused at once (4290) rather than kept to their deadline.
    const uploads = h.track(
      ...(await openConnections(s.port, SLOW_UPLOADS / 2, '127.0.0.51')),
      ...(await openConnections(s.port, SLOW_UPLOADS / 2, '127.0.0.52')),
    );
    const headers = h.track(...(await openConnections(s.port, SLOW_HEADERS)));
    const oversized = h.track(...(await openConnections(s.port, OVERSIZED_UPLOADS)));
    // A dispute of 2,000 bytes of which a few arrive every TRICKLE_EVERY_MS; headers a line at a
    // time; bodies declared over the 64 KiB limit (refused, then read off until they end).
    const upload = (length: number) =>
      `POST /oracle/markets/dispute/submit HTTP/1.1\r\nHost: oracle\r\nx-api-key: ${h.disputed.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n{"reason_text":"`;
    const limit = REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + 2_000;
    const attack = await underAttack(s, h.innocent, () =>
      Promise.all([
        sendSlowly(uploads, upload(2_000), 'abc', limit),
        sendSlowly(headers, 'GET /oracle/markets/public?slug=a&source=b HTTP/1.1\r\nHost: oracle\r\n', 'x-slow: 1\r\n', limit),
        sendSlowly(oversized, upload(70_000), 'abc', limit),
      ]),
      INNOCENT_P99_BOUND_MS,
    );
    const [uploadClosedMs, headersClosedMs, oversizedClosedMs] = attack.outcome;
    for (const [connections, closedMs, deadline] of [
      [uploads, uploadClosedMs, REQUEST_TIMEOUT_MS],
      [headers, headersClosedMs, HEADERS_TIMEOUT_MS],
      [oversized, oversizedClosedMs, REQUEST_TIMEOUT_MS],
    ] as const) {
      for (const connection of connections) {
        expectEnvelopeAndClose(connection, connection.answers[0], TIMED_OUT);
        // Not before its deadline (which runs from the connection's start at the latest).
        expect(connection.closedAt! - connection.openedAt).toBeGreaterThanOrEqual(deadline);
      }
      expect(Math.max(...closedMs)).toBeLessThan(deadline + CHECK_INTERVAL_MS + 1_500);
    }
    await expectNo5000(s);
    // Answered at their deadline, their bodies never read whole: nothing more is done for them.
    expect(await errorLines(s)).toEqual([]);
    const spread = (ms: number[]) => `${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)} ms (p50 ${percentile(ms, 50).toFixed(0)})`;
    console.log(
      [
        `Slow clients (HTTP_REQUEST_TIMEOUT_MS ${REQUEST_TIMEOUT_MS}, HTTP_HEADERS_TIMEOUT_MS ${HEADERS_TIMEOUT_MS}, checked every ${CHECK_INTERVAL_MS} ms; a few bytes every ${TRICKLE_EVERY_MS} ms):`,
        `  ${attack.summary}`,
        `  ${SLOW_UPLOADS} uploads: ${countCodes(uploads.map((c) => c.answers[0]?.body))}, Connection: close, closed after ${spread(uploadClosedMs)}`,
        `  ${SLOW_HEADERS} slow headers: ${countCodes(headers.map((c) => c.answers[0]?.body))}, Connection: close, closed after ${spread(headersClosedMs)}`,
        `  ${OVERSIZED_UPLOADS} slow uploads declared over 64 KiB: ${countCodes(oversized.map((c) => c.answers[0]?.body))}, Connection: close, closed after ${spread(oversizedClosedMs)}`,
      ].join('\n'),
    );
  });

  it('gives back the place of every client that hangs up before its body is read (more of them than MAX_REQUESTS_IN_FLIGHT)', async () => {
    const s = h.server;
    const count = 300; // the default MAX_REQUESTS_IN_FLIGHT is 256
    const head = (length: number) =>
      `POST /oracle/markets/dispute/submit HTTP/1.1\r\nHost: oracle\r\nx-api-key: ${h.disputed.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n{"market_id":`;
    const hangingUp = h.track(...(await openConnections(s.port, count)));
    // Half declare more than the body limit (the body is refused, then drained until the client
    // goes), half a body within it that never arrives whole.
    hangingUp.forEach((connection, i) => connection.write(head(i % 2 ? 70_000 : 2_000)));
    await sleep(300);
    for (const connection of hangingUp) connection.close();
    await sleep(500);
    expect(await metricValue(s, 'oracle_http_requests_in_flight')).toBe(0);
    const after = await h.innocent.measure(10);
    expect(after.filter((x) => x.result.body?.code !== x.request.code).map((x) => `${x.request.label}: ${JSON.stringify(x.result.body)}`)).toEqual([]);
    await expectNo5000(s);
    expect(await errorLines(s)).toEqual([]);
  });

  it('answers a request refused before its body has arrived once: at its deadline the connection closes, without a second answer', async () => {
    const s = h.server;
    // No key: 4010 at once, without the body (3 bytes of 100).
    const [connection] = h.track(await RawConnection.open(s.port));
    connection.startReading();
    connection.write('POST /oracle/markets/dispute/submit HTTP/1.1\r\nHost: oracle\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"m');
    const [refused] = await connection.readAnswers(1, 2_000);
    expect(refused?.body).toEqual({ code: 4010, msg: 'api key is required', detail: 'api key is required' });
    // Before, at the request's deadline, the connection got a second answer (4000, "did not arrive in time").
    expect(await connection.readUntilClosed(REQUEST_TIMEOUT_MS + CHECK_INTERVAL_MS + 1_500)).toBe(true);
    expect(connection.answers).toHaveLength(1);
    await expectNo5000(s);
  });

  /** One raw exchange: writes `bytes`, reads until the server closes the connection (at most 5 s). */
  async function exchange(bytes: string): Promise<{ connection: RawConnection; ms: number }> {
    const [connection] = h.track(await RawConnection.open(h.server.port));
    const startedAt = performance.now();
    connection.write(bytes);
    expect(await connection.readUntilClosed(5_000)).toBe(true);
    return { connection, ms: performance.now() - startedAt };
  }

  it('answers requests the HTTP parser rejects in the envelope with Connection: close', async () => {
    const figures: string[] = [];
    const cases: [string, string, unknown][] = [
      [
        'headers over 16 KiB',
        `GET /oracle/markets/public?slug=a&source=b HTTP/1.1\r\nHost: oracle\r\nx-big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
        { code: 4130, msg: 'payload too large', detail: 'request headers too large' },
      ],
      ['a malformed request line', 'THIS IS NOT HTTP\r\n\r\n', { code: 4000, msg: 'invalid request', detail: 'the request could not be parsed as HTTP' }],
      ['a malformed header line', 'GET /health/live HTTP/1.1\r\nHost: oracle\r\nno colon here\r\n\r\n', { code: 4000, msg: 'invalid request', detail: 'the request could not be parsed as HTTP' }],
      ['headers that never end', 'GET /health/live HTTP/1.1\r\nHost: oracle\r\n', TIMED_OUT],
      // The client asks for the connection to close: this one is answered by the pipeline.
      ['HTTP/1.1 without Host', 'GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n', { code: 4000, msg: 'invalid request', detail: 'the Host header is required' }],
      [
        'two Host headers',
        'GET /oracle/markets/public?slug=a&source=b HTTP/1.1\r\nHost: oracle\r\nhost: elsewhere.example\r\nConnection: close\r\n\r\n',
        { code: 4000, msg: 'invalid request', detail: 'a request has one Host header' },
      ],
      // Node would answer an empty 417 itself.
      [
        'an expectation other than 100-continue',
        'GET /oracle/markets/public?slug=a&source=b HTTP/1.1\r\nHost: oracle\r\nExpect: bogus\r\nConnection: close\r\n\r\n',
        { code: 4000, msg: 'invalid request', detail: 'the Expect header can only be 100-continue' },
      ],
      [
        'a broken chunked body',
        `POST /oracle/markets/dispute/submit HTTP/1.1\r\nHost: oracle\r\nx-api-key: ${h.disputed.apiKey}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        { code: 4000, msg: 'invalid request', detail: 'the request could not be parsed as HTTP' },
      ],
      ['CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', { code: 4000, msg: 'invalid request', detail: 'CONNECT is not supported' }],
    ];
    for (const [name, bytes, body] of cases) {
      const { connection, ms } = await exchange(bytes);
      expect(connection.answers).toHaveLength(1);
      expectEnvelopeAndClose(connection, connection.answers[0], body);
      figures.push(`  ${name}: ${(body as { code: number }).code} in ${ms.toFixed(0)} ms`);
    }
    // A whole request, then bytes that are not HTTP: the request's answer, then the rejection.
    const { connection } = await exchange(`GET /oracle/markets/public?slug=${h.cached.slug}&source=${h.cached.source} HTTP/1.1\r\nHost: oracle\r\n\r\nGARBAGE\r\n\r\n`);
    expect(connection.answers.map((answer) => answer.body.code)).toEqual([0, 4000]);
    expectEnvelopeAndClose(connection, connection.answers[1], { code: 4000, msg: 'invalid request', detail: 'the request could not be parsed as HTTP' });
    figures.push('  a whole request, then bytes that are not HTTP: its answer (0), then 4000');
    await expectNo5000(h.server);
    expect(await errorLines(h.server)).toEqual([]);
    console.log(['Requests the HTTP parser rejects (HTTP 200 envelope, x-request-id, Connection: close):', ...figures].join('\n'));
  });
});
