import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultDatabase, FaultPostgres } from './support/fault-postgres';
import { lockMarket } from './support/hostile';
import { type OneServer, startOneServer } from './support/one-server';
import { RawConnection, rawRequest } from './support/raw-http';
import { disputeBody, type SeededMarket } from './support/seed';
import type { ServerProcess } from './support/server-process';

/**
 * SIGTERM with a request in flight: the server answers what keep-alive clients send from then on
 * with Connection: close, stops accepting connections half a second later, lets the request
 * finish (here: a dispute submission blocked on a market row lock the test holds), and exits 0.
 */
describe('faults: SIGTERM with a request in flight', () => {
  let postgres: FaultPostgres;
  let database: FaultDatabase;
  let server: ServerProcess | undefined;
  let market: SeededMarket;

  beforeAll(async () => {
    let markets: SeededMarket[];
    ({ postgres, database, server, markets } = await startOneServer({ name: 'sigterm-server' }));
    [market] = markets;
  });

  afterAll(async () => {
    await server?.stop();
    await postgres?.destroy();
  });

  it('stops accepting, finishes the in-flight dispute submission (code 0), then exits 0', async () => {
    const s = server!;
    const lock = await lockMarket(database.dataSource, market.id);
    let released = false;
    try {
      // Fired on its own connection; it blocks inside the server's transaction on our lock.
      const inFlight = s.http.request('POST', '/oracle/markets/dispute/submit', {
        headers: { 'x-api-key': market.apiKey },
        body: disputeBody(market.id),
        freshConnection: true,
        timeoutMs: 15_000,
      });

      // Proof that it is in flight: a server session waits on a lock in this database.
      const waitStart = performance.now();
      for (;;) {
        const [{ waiting }] = await database.dataSource.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = $1 AND application_name = 'settlement-oracle' AND wait_event_type = 'Lock'`,
          [database.name],
        );
        if (waiting === 1) break;
        if (performance.now() - waitStart > 1_000) throw new Error(`the submission never blocked on the lock\n${s.logs()}`);
        await sleep(10);
      }

      // A keep-alive client with a request in progress too: a second dispute on the locked market.
      const kept = connect(s.port, '127.0.0.1');
      kept.on('error', () => undefined);
      let keptAnswers = '';
      kept.on('data', (chunk: Buffer) => (keptAnswers += chunk.toString('latin1')));
      const keptClosed = new Promise<void>((closed) => kept.once('close', () => closed()));
      const body = JSON.stringify(disputeBody(market.id));
      kept.write(
        `POST /oracle/markets/dispute/submit HTTP/1.1\r\nHost: a\r\nx-api-key: ${market.apiKey}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // And one that sends nothing more: its answer in progress closes the connection.
      const quiet = await RawConnection.open(s.port);
      quiet.write(rawRequest('POST', '/oracle/markets/dispute/submit', { 'x-api-key': market.apiKey }, disputeBody(market.id)));
      await sleep(100);

      const termAt = performance.now();
      s.signal('SIGTERM');
      await sleep(300);

      // Still running: it waits for the in-flight request...
      expect(s.running).toBe(true);
      // A request the keep-alive client sends now is answered, with Connection: close; readiness
      // says the instance is stopping, so that a load balancer sends it no more.
      kept.write('GET /health/ready HTTP/1.1\r\nHost: a\r\n\r\n');
      // ...but, half a second after the signal, no longer accepts connections.
      await sleep(400);
      const probe = await s.http.request('GET', '/health/live', { freshConnection: true, timeoutMs: 1_000 });
      expect({ status: probe.status, error: probe.error }).toEqual({ status: 0, error: 'ECONNREFUSED' });

      const releaseAt = performance.now();
      const lockHeldMs = releaseAt - waitStart;
      // The server's lock_timeout (DB_STATEMENT_TIMEOUT_MS, 2000 ms by default) has not fired.
      expect(lockHeldMs).toBeLessThan(1_500);
      await lock.release();
      released = true;

      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ code: 0, msg: 'success', data: { dispute_id: expect.any(Number) } });

      await keptClosed;
      const heads = keptAnswers.split(/(?=HTTP\/1\.1 )/);
      expect(heads).toHaveLength(2);
      expect(heads[1]).toMatch(/^HTTP\/1\.1 503 [^]*\r\nconnection: close\r\n[^]*"error":\{"instance":\{"message":"the instance is stopping","status":"down"\}\}/i);
      await expect(quiet.readUntilClosed(1_000)).resolves.toBe(true);
      expect(quiet.answers.map((answer) => [answer.body.code, answer.headers.connection])).toEqual([[4091, 'close']]);

      const exit = await s.waitExit(5_000);
      if (!exit) throw new Error(`the server did not exit within 5 s of the lock's release\n${s.logs()}`);
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });

      const [dispute] = await database.dataSource.query(
        `SELECT d.market_id, m.status FROM disputes d JOIN markets m ON m.id = d.market_id WHERE d.id = $1`,
        [response.body.data.dispute_id],
      );
      expect(dispute).toEqual({ market_id: String(market.id), status: 'disputed' });

      console.log(
        [
          'SIGTERM with a request in flight:',
          `  lock held ${lockHeldMs.toFixed(0)} ms in total (SIGTERM ${(termAt - waitStart).toFixed(0)} ms after the request blocked)`,
          `  connection refused ${(probe.startedAt - termAt).toFixed(0)} ms after SIGTERM`,
          `  in-flight response (code 0) ${(response.endedAt - releaseAt).toFixed(0)} ms after the lock's release`,
          `  exit code 0 ${(exit.at - releaseAt).toFixed(0)} ms after the lock's release, ${(exit.at - termAt).toFixed(0)} ms after SIGTERM`,
        ].join('\n'),
      );
    } finally {
      if (!released) await lock.release();
    }
  });
});

/**
 * SIGTERM while keep-alive clients send request after request, each as soon as the last is
 * answered: a request sent before its client could know (on an answer that said keep-alive) is
 * answered, not cut off by the close of a connection that looked idle; the answer says
 * Connection: close, and the client stops there.
 */
describe('faults: SIGTERM under back-to-back keep-alive requests', () => {
  let postgres: FaultPostgres;
  let server: ServerProcess | undefined;
  let market: SeededMarket;

  beforeAll(async () => {
    let markets: SeededMarket[];
    ({ postgres, server, markets } = await startOneServer({ name: 'sigterm-keep-alive' }));
    [market] = markets;
  });

  afterAll(async () => {
    await server?.stop();
    await postgres?.destroy();
  });

  it('answers every request sent before an answer said Connection: close, then exits 0', async () => {
    const s = server!;
    const read = rawRequest('GET', `/oracle/markets/public?slug=${market.slug}&source=${market.source}`);
    const clients = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const connection = await RawConnection.open(s.port);
        let sent = 0;
        const next = () => {
          const last = connection.answers.at(-1);
          if (last?.headers.connection === 'close' || sent > connection.answers.length) return;
          if (connection.write(read)) sent++;
        };
        connection.startReading(next);
        next();
        return { connection, sent: () => sent };
      }),
    );
    await sleep(300);
    s.signal('SIGTERM');

    await Promise.all(clients.map(({ connection }) => connection.readUntilClosed(5_000)));
    const figures = clients.map(({ connection, sent }) => ({
      sent: sent(),
      answered: connection.answers.length,
      codes: [...new Set(connection.answers.map((answer) => answer.body.code))],
      last: connection.answers.at(-1)?.headers.connection,
      error: connection.error,
    }));
    for (const figure of figures) {
      expect(figure).toEqual({ sent: figure.answered, answered: expect.any(Number), codes: [0], last: 'close', error: undefined });
    }
    const exit = await s.waitExit(5_000);
    expect({ code: exit?.code, signal: exit?.signal }).toEqual({ code: 0, signal: null });
    const answered = figures.reduce((sum, figure) => sum + figure.answered, 0);
    console.log(`SIGTERM under back-to-back keep-alive reads: 40 connections, ${answered} requests, every one answered; each connection closed after an answer with Connection: close`);
  });
});

/**
 * SHUTDOWN_DELAY_MS: from SIGTERM, readiness answers 503 while the instance goes on serving, new
 * connections included, for that long, so that a load balancer sees it before connections are
 * refused; then it drains as without it, and exits 0.
 */
describe('faults: SIGTERM with SHUTDOWN_DELAY_MS', () => {
  const DELAY_MS = 2_000;
  let started: OneServer | undefined;

  beforeEach(async () => {
    started = await startOneServer({ name: 'sigterm-delay', env: { SHUTDOWN_DELAY_MS: String(DELAY_MS) } });
  });

  afterEach(async () => {
    await started?.server.stop();
    await started?.postgres.destroy();
  });

  it('answers readiness 503 at once, serves new connections until the delay is over, then stops accepting and exits 0', async () => {
    const { server: s, markets } = started!;
    const read = `/oracle/markets/public?slug=${markets[0].slug}&source=${markets[0].source}`;
    const fresh = (path: string) => s.http.request('GET', path, { freshConnection: true, timeoutMs: 1_000 });
    const termAt = performance.now();
    s.signal('SIGTERM');
    // Past the half second after which, without a delay, new connections are refused.
    await sleep(800);
    const ready = await fresh('/health/ready');
    expect({ status: ready.status, error: ready.body?.error }).toEqual({
      status: 503,
      error: { instance: { status: 'down', message: 'the instance is stopping' } },
    });
    expect((await fresh(read)).body.code).toBe(0);
    // The delay, then the drain's half second: new connections are refused.
    await sleep(DELAY_MS + 500 + 700 - (performance.now() - termAt));
    const refused = await fresh('/health/live');
    expect({ status: refused.status, error: refused.error }).toEqual({ status: 0, error: 'ECONNREFUSED' });
    const exit = await s.waitExit(5_000);
    expect({ code: exit?.code, signal: exit?.signal }).toEqual({ code: 0, signal: null });
  });

  it('ends at once on a second signal during the delay, of the other kind too (SIGINT after SIGTERM: exit 130), but takes one within a second as the same', async () => {
    const s = started!.server;
    s.signal('SIGTERM');
    await sleep(200);
    s.signal('SIGINT'); // Ctrl-C comes from the terminal and again from npm: the same stop
    await sleep(300);
    expect(s.running).toBe(true);
    expect((await s.http.request('GET', '/health/ready')).status).toBe(503);
    await sleep(800);
    s.signal('SIGINT');
    const exit = await s.waitExit(1_000);
    expect({ code: exit?.code, signal: exit?.signal }).toEqual({ code: 130, signal: null });
  });
});
