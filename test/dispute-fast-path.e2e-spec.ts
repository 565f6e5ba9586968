import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AddressInfo, connect } from 'node:net';
import type { Response, Test } from 'supertest';
import type { Fixtures } from './support/fixtures';
import { stableHeaders as stableHeadersOf, watchPipeline } from './support/pipeline-watch';
import { fixturesOf, startTestApp, type TestApp } from './support/test-app';

const SUBMIT = '/oracle/markets/dispute/submit';
/** The same route with a query string: Express routes it alike, the fast path never takes it. */
const VIA_PIPELINE = `${SUBMIT}?via=pipeline`;
const LIMIT = 5;

type Partner = { source: string; apiKey: string; keyId: string };

const body = (marketId: number | string, overrides: Record<string, unknown> = {}) => ({
  market_id: marketId,
  submitter_id: 'user-7',
  submitter_name: 'Ada',
  submitter_selection: 'NO',
  reason_text: 'The reference print was corrected after the close.',
  submitted_at: '2026-11-02T09:30:00Z',
  ...overrides,
});

/**
 * A dispute submission with a plain, valid body is answered ahead of Express and Nest
 * (src/disputes/dispute-fast-path.ts). These tests hold it to the pipeline's answer for the
 * same request, errors included, sent to the same route with a query string (which the fast
 * path never takes); and check that every other request reaches the pipeline, with its body.
 */
describe('dispute submission fast path', () => {
  let t: TestApp;
  let fixtures: Fixtures;
  let send: ReturnType<typeof watchPipeline>;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_DISPUTE_PER_MINUTE: String(LIMIT) });
    fixtures = fixturesOf(t);
    send = watchPipeline(t.app);
  });

  afterAll(async () => {
    await t?.close();
  });

  const submit = (partner: Partner, payload: unknown, path = SUBMIT) => {
    const request = t.http.post(path).set('x-api-key', partner.apiKey);
    return send(typeof payload === 'string' ? request.set('content-type', 'application/json').send(payload) : request.send(payload as object));
  };

  const stableHeaders = (response: Response) => stableHeadersOf(response, ['date', 'x-request-id', 'x-ratelimit-remaining', 'content-length']);

  const disputesOf = async (marketId: number) =>
    (await t.dataSource.query(
      `SELECT m.status, d.submitter_id, d.submitter_name, d.submitter_selection, d.reason_text, d.submitted_at
         FROM markets m LEFT JOIN disputes d ON d.market_id = m.id WHERE m.id = $1`,
      [marketId],
    )) as Record<string, unknown>[];

  it('files a plain submission itself, with the pipeline\'s headers, in order, envelope and record', async () => {
    const partner = await fixtures.partner();
    const [viaPipeline, viaFastPath] = [await fixtures.market(partner.source), await fixtures.market(partner.source)];
    const padded = { submitter_id: '  user-7 ', reason_text: '\tThe reference print was corrected after the close.\n' };

    const piped = await submit(partner, body(viaPipeline.id, padded), VIA_PIPELINE);
    const fast = await send(
      t.http.post(SUBMIT).set('x-api-key', ` ${partner.apiKey} `).set('x-request-id', 'trace-7').send(body(String(viaFastPath.id), padded)),
    );

    expect([piped.byPipeline, fast.byPipeline]).toEqual([true, false]);
    expect(piped.response.body).toEqual({ code: 0, msg: 'success', data: { dispute_id: expect.any(Number) } });
    expect(fast.response.body).toEqual({ code: 0, msg: 'success', data: { dispute_id: piped.response.body.data.dispute_id + 1 } });
    expect(stableHeaders(fast.response)).toEqual(stableHeaders(piped.response));
    expect(stableHeaders(fast.response)).toEqual(
      expect.arrayContaining(['Content-Type: application/json; charset=utf-8', `X-RateLimit-Limit: ${LIMIT}`, 'X-Frame-Options: SAMEORIGIN']),
    );
    expect(fast.response.headers['x-request-id']).toBe('trace-7');
    expect([piped.response.headers['x-ratelimit-remaining'], fast.response.headers['x-ratelimit-remaining']]).toEqual([
      String(LIMIT - 1),
      String(LIMIT - 2),
    ]);

    const [pipedRecord] = await disputesOf(viaPipeline.id);
    const [fastRecord] = await disputesOf(viaFastPath.id);
    expect(fastRecord).toEqual(pipedRecord);
    expect(fastRecord).toMatchObject({ status: 'disputed', submitter_id: 'user-7', submitted_at: new Date('2026-11-02T09:30:00Z') });
  });

  it('answers the key\'s and the market\'s errors as the pipeline does', async () => {
    const other = await fixtures.partner();
    const cases: [string, (partner: Partner) => Promise<{ key: string; marketId: number }>, number][] = [
      ['unknown key', async (p) => ({ key: `${p.apiKey}x`, marketId: (await fixtures.market(p.source)).id }), 4011],
      ['unknown key, no such market', async (p) => ({ key: `${p.apiKey}x`, marketId: 987654321 }), 4011],
      ['revoked key', async (p) => {
        await t.dataSource.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [p.keyId]);
        return { key: p.apiKey, marketId: (await fixtures.market(p.source)).id };
      }, 4011],
      ['no such market', async (p) => ({ key: p.apiKey, marketId: 987654321 }), 4040],
      ['another partner\'s market', async (p) => ({ key: p.apiKey, marketId: (await fixtures.market(other.source)).id }), 4030],
      ['not resolved', async (p) => ({ key: p.apiKey, marketId: (await fixtures.market(p.source, { status: 'monitoring' })).id }), 4090],
      ['disputed already', async (p) => {
        const market = await fixtures.market(p.source);
        expect((await submit(p, body(market.id))).response.body.code).toBe(0);
        return { key: p.apiKey, marketId: market.id };
      }, 4091],
    ];
    for (const [name, arrange, code] of cases) {
      const answers = [];
      for (const path of [VIA_PIPELINE, SUBMIT]) {
        const partner = await fixtures.partner();
        const { key, marketId } = await arrange(partner);
        const before = await disputesOf(marketId);
        answers.push(await submit({ ...partner, apiKey: key }, body(marketId), path));
        expect({ name, path, after: await disputesOf(marketId) }).toEqual({ name, path, after: before }); // nothing filed
      }
      const [piped, fast] = answers;
      expect({ name, byPipeline: [piped.byPipeline, fast.byPipeline], code: fast.response.body.code }).toEqual({
        name,
        byPipeline: [true, false],
        code,
      });
      expect(fast.response.body).toEqual(piped.response.body);
      expect(stableHeaders(fast.response)).toEqual(stableHeaders(piped.response));
    }
  });

  it('records the key\'s use, as the pipeline\'s guard does', async () => {
    const lastUsed = async (keyId: string) =>
      ((await t.dataSource.query('SELECT last_used_at FROM api_keys WHERE id = $1', [keyId])) as { last_used_at: Date | null }[])[0].last_used_at;
    const partner = await fixtures.partner();
    expect(await lastUsed(partner.keyId)).toBeNull();
    const { byPipeline, response } = await submit(partner, body(987654321));
    expect({ byPipeline, code: response.body.code }).toEqual({ byPipeline: false, code: 4040 });
    const deadline = Date.now() + 2000; // written in the background
    while ((await lastUsed(partner.keyId)) === null && Date.now() < deadline) await new Promise((done) => setTimeout(done, 10));
    expect(await lastUsed(partner.keyId)).toBeInstanceOf(Date);
  });

  it('hands every other body to the pipeline, which answers it as it would have', async () => {
    const cases: [string, (marketId: number) => string, number][] = [
      ['malformed JSON', (id) => `{"market_id":${id},`, 4001],
      ['an array', (id) => JSON.stringify([body(id)]), 4001],
      ['empty', () => '', 4000],
      ['an unknown field', (id) => JSON.stringify(body(id, { note: 'x' })), 4000],
      ['__proto__', (id) => `{"__proto__":{"admin":true},${JSON.stringify(body(id)).slice(1)}`, 4000],
      ['a blank name', (id) => JSON.stringify(body(id, { submitter_name: '   ' })), 4000],
      ['a name too long', (id) => JSON.stringify(body(id, { submitter_name: 'n'.repeat(201) })), 4000],
      ['an id of 0', () => JSON.stringify(body(0)), 4000],
      ['an id past 2^53', () => JSON.stringify(body('9007199254740993')), 4000],
      ['a NUL in the reason', (id) => JSON.stringify(body(id, { reason_text: 'a\u0000b' })), 4000],
      ['no submitter_id', (id) => JSON.stringify(body(id, { submitter_id: undefined })), 4000],
      ['submitted_at a number (server time is used)', (id) => JSON.stringify(body(id, { submitted_at: 1 })), 0],
      ['submitted_at null', (id) => JSON.stringify(body(id, { submitted_at: null })), 0],
    ];
    for (const [name, payload, code] of cases) {
      const answers = [];
      for (const path of [VIA_PIPELINE, SUBMIT]) {
        const partner = await fixtures.partner();
        answers.push(await submit(partner, payload((await fixtures.market(partner.source)).id), path));
      }
      const [piped, fast] = answers;
      expect({ name, byPipeline: fast.byPipeline, code: fast.response.body.code }).toEqual({ name, byPipeline: true, code });
      if (code === 0) expect(fast.response.body).toEqual({ code: 0, msg: 'success', data: { dispute_id: expect.any(Number) } });
      else expect(fast.response.body).toEqual(piped.response.body);
      expect(stableHeaders(fast.response)).toEqual(stableHeaders(piped.response));
    }

    // A byte-order mark is read past, as the body parser does: a plain submission after all.
    const partner = await fixtures.partner();
    const market = await fixtures.market(partner.source);
    const bom = await submit(partner, `\ufeff${JSON.stringify(body(market.id))}`);
    expect({ byPipeline: bom.byPipeline, code: bom.response.body.code }).toEqual({ byPipeline: false, code: 0 });
  });

  it('leaves to the pipeline what it would not read the same way', async () => {
    let partner: Partner;
    const post = (path = SUBMIT, contentType = 'application/json') =>
      t.http.post(path).set('x-api-key', partner.apiKey).set('content-type', contentType);
    const cases: [string, (payload: string) => Test, number][] = [
      ['no key', (payload) => t.http.post(SUBMIT).set('content-type', 'application/json').send(payload), 4010],
      ['a blank key', (payload) => post().set('x-api-key', ' ').send(payload), 4010],
      ['text/plain', (payload) => post(SUBMIT, 'text/plain').send(payload), 0],
      ['UTF-16', (payload) => post(SUBMIT, 'application/json; charset=utf-16').send(payload), 4001],
      ['gzip', (payload) => post().set('content-encoding', 'gzip').send(payload), 4001],
      ['over the body limit', () => post().send(`{"reason_text":"${'r'.repeat(70_000)}"}`), 4130],
      ['a query string', (payload) => post(`${SUBMIT}?x=1`).send(payload), 0],
      ['another letter case', (payload) => post(SUBMIT.toUpperCase()).send(payload), 0],
    ];
    for (const [name, request, code] of cases) {
      partner = await fixtures.partner();
      const payload = JSON.stringify(body((await fixtures.market(partner.source)).id));
      const { response, byPipeline } = await send(request(payload));
      expect({ name, byPipeline, status: response.status, code: response.body?.code }).toEqual({ name, byPipeline: true, status: 200, code });
    }
  });

  it('counts into the pipeline\'s rate-limit budget, and leaves the 4290 to the pipeline', async () => {
    const partner = await fixtures.partner();
    const answers = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const market = await fixtures.market(partner.source);
      // The second request goes to the pipeline (its body is not plain): the budget is one.
      answers.push(await submit(partner, body(market.id, i === 1 ? { extra: true } : {})));
    }
    expect(answers.map((a) => a.byPipeline)).toEqual([false, true, ...Array(LIMIT - 2).fill(false), true, true]);
    expect(answers.map((a) => a.response.body.code)).toEqual([0, 4000, ...Array(LIMIT - 2).fill(0), 4290, 4290]);
    expect(answers.map((a) => a.response.headers['x-ratelimit-remaining'])).toEqual([
      ...Array.from({ length: LIMIT }, (_, i) => String(LIMIT - 1 - i)),
      undefined,
      undefined,
    ]);
    expect(answers[LIMIT].response.body).toEqual({ code: 4290, msg: 'too many requests', detail: 'too many requests' });
  });

  it('counts what it answers in the request metrics', async () => {
    const partner = await fixtures.partner();
    const metric = async (pattern: RegExp) => Number(pattern.exec((await t.http.get('/metrics')).text)?.[1] ?? 0);
    const patterns = [
      /oracle_http_requests_total\{method="POST",route="\/oracle\/markets\/dispute\/submit",code="0"\} (\d+)/,
      /oracle_http_requests_total\{method="POST",route="\/oracle\/markets\/dispute\/submit",code="4040"\} (\d+)/,
      /oracle_disputes_filed_total (\d+)/,
      /oracle_dispute_fast_path_total (\d+)/,
    ];
    const counts = async () => Promise.all(patterns.map(metric));
    const before = await counts();
    for (let i = 0; i < 2; i++) expect((await submit(partner, body((await fixtures.market(partner.source)).id))).byPipeline).toBe(false);
    expect((await submit(partner, body(987654321))).response.body.code).toBe(4040);
    const [ok, notFound, filed, answered] = before;
    expect(await counts()).toEqual([ok + 2, notFound + 1, filed + 2, answered + 3]);
  });

  it('files nothing for a body cut off, counts nothing for it, and goes on serving', async () => {
    const partner = await fixtures.partner();
    const market = await fixtures.market(partner.source);
    // A complete, valid submission, but the request says more is coming: it never arrives.
    const payload = JSON.stringify(body(market.id));
    const server = t.app.getHttpServer();
    if (!server.address()) await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    const answered = async () => Number(/oracle_dispute_fast_path_total (\d+)/.exec((await t.http.get('/metrics')).text)?.[1] ?? 0);
    const before = await answered();
    await new Promise<void>((done, fail) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST ${SUBMIT} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-api-key: ${partner.apiKey}\r\n` +
            `Content-Length: ${payload.length + 10}\r\n\r\n${payload}`,
          () => setTimeout(() => socket.destroy(), 50),
        );
      });
      socket.on('close', () => done());
      socket.on('error', fail);
    });
    await new Promise((settle) => setTimeout(settle, 100));
    expect(await disputesOf(market.id)).toEqual([expect.objectContaining({ status: 'resolved', submitter_id: null })]);
    expect(await answered()).toBe(before);
    const { response, byPipeline } = await submit(partner, body(market.id));
    expect({ code: response.body.code, byPipeline }).toEqual({ code: 0, byPipeline: false });
  });
});
