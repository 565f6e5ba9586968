import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import pg from 'pg';
import { type HttpHead, parseHead } from './support/http-head';
import { fixturesOf, startTestApp, type TestApp } from './support/test-app';

const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });

describe('the envelope around everything', () => {
  let t: TestApp;
  let acme: { apiKey: string };

  beforeAll(async () => {
    t = await startTestApp();
    acme = await fixturesOf(t).partner('acme');
  });

  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['GET', '/oracle/markets/nope'],
    ['GET', '/'],
    ['GET', '/definitely/not/here?x=1'],
    ['POST', '/oracle/markets/public'],
    ['GET', '/oracle/markets/dispute/submit'],
    ['DELETE', '/oracle/markets/dispute/submit'],
    ['PUT', '/admin/unknown'],
  ])('4044 for %s %s, with a request id', async (method, path) => {
    const response = await t.http[method.toLowerCase() as 'get'](path);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(error(4044, 'not found'));
    expect(response.headers['x-request-id']).toBeTruthy();
  });

  it('takes a request of 100 header fields, and answers 4130 to one of more', async () => {
    const server = t.app.getHttpServer() as Server;
    if (!server.listening) await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    const withFields = (count: number) =>
      new Promise<{ head: HttpHead; body: unknown }>((answered, failed) => {
        let request = 'GET /oracle/markets/nope HTTP/1.1\r\nHost: a\r\nConnection: close\r\n';
        for (let i = 2; i < count; i++) request += `x-filler-${i}: f\r\n`;
        const socket = connect(port, '127.0.0.1', () => socket.write(`${request}\r\n`));
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', failed);
        socket.on('end', () => {
          const answer = Buffer.concat(chunks);
          const blank = answer.indexOf('\r\n\r\n');
          answered({ head: parseHead(answer.subarray(0, blank)), body: JSON.parse(answer.subarray(blank + 4).toString()) });
        });
      });
    expect((await withFields(100)).body).toEqual(error(4044, 'not found'));
    const refused = await withFields(101);
    expect(refused.body).toEqual(error(4130, 'payload too large', 'request headers too large'));
    expect(refused.head.headers.connection).toBe('close');
  });

  it('4130 for a body over 64 KiB, after authentication', async () => {
    const body = JSON.stringify({ reason_text: 'x'.repeat(70 * 1024) });
    const anonymous = await t.http.post('/oracle/markets/dispute/submit').set('content-type', 'application/json').send(body);
    expect(anonymous.body).toEqual(error(4010, 'api key is required'));
    const response = await t.http
      .post('/oracle/markets/dispute/submit')
      .set('x-api-key', acme.apiKey)
      .set('content-type', 'application/json')
      .send(body);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(error(4130, 'payload too large'));
  });

  it('reads a mislabelled JSON body as JSON, and reports a non-JSON one as malformed', async () => {
    const form = await t.http
      .post('/oracle/markets/dispute/submit')
      .set('x-api-key', acme.apiKey)
      .set('content-type', 'application/x-www-form-urlencoded')
      .send('market_id=1');
    expect(form.body).toEqual(error(4001, 'malformed JSON body'));
  });

  it('does not read a body sent with a GET (RFC 9110 gives it no meaning)', async () => {
    const response = await t.http.get('/oracle/markets/public?slug=none&source=acme').set('content-type', 'application/json').send('{bad');
    expect(response.body).toEqual({ code: 0, msg: 'success', data: { markets: [] } });
  });

  it('5030 within a couple of seconds when the database does not answer in time', async () => {
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE markets IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const response = await t.http.get('/oracle/markets/public?slug=a&source=acme');
      expect(response.status).toBe(200);
      expect(response.body).toEqual(error(5030, 'service unavailable'));
      expect(Date.now() - started).toBeLessThan(3500);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    const recovered = await t.http.get('/oracle/markets/public?slug=a&source=acme');
    expect(recovered.body).toEqual({ code: 0, msg: 'success', data: { markets: [] } });
  });

  it('answers a conditional request with the whole envelope, never a bodiless 304', async () => {
    const first = await t.http.get('/oracle/markets/public?slug=a&source=acme');
    expect(first.headers.etag).toBeUndefined();
    for (const [header, value] of [['if-none-match', '*'], ['if-modified-since', new Date(Date.now() + 86_400_000).toUTCString()]]) {
      const again = await t.http.get('/oracle/markets/public?slug=a&source=acme').set(header, value);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    }
  });

  it('5000 with nothing internal for an unexpected failure, and the server stays up', async () => {
    await t.dataSource.query('ALTER TABLE proofs RENAME TO proofs_gone');
    try {
      // A key no earlier test read: the public record cache does not answer for it.
      const response = await t.http.get('/oracle/markets/public?slug=unread&source=acme');
      expect(response.status).toBe(200);
      expect(response.body).toEqual(error(5000, 'internal error'));
      expect(JSON.stringify(response.body)).not.toMatch(/proofs|relation|SELECT|at \w+ \(/);
    } finally {
      await t.dataSource.query('ALTER TABLE proofs_gone RENAME TO proofs');
    }
    const recovered = await t.http.get('/oracle/markets/public?slug=unread&source=acme');
    expect(recovered.body.code).toBe(0);
  });
});
