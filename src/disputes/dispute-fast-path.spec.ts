import { afterEach, describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { RequestContextMiddleware } from '../common/request-context.middleware';
import { MemoryThrottlerStorage } from '../observability/memory-throttler-storage';
import type { MetricsService } from '../observability/metrics.service';
import { DisputeFastPath, type DisputeFastPathParts } from './dispute-fast-path';
import type { SubmitDisputeDto } from './submit-dispute.dto';

const PARTNER: AuthenticatedPartner = { partnerId: '1', source: 'acme', keyId: '1' };
const PLAIN = { market_id: 7, submitter_id: 'u', submitter_name: 'n', submitter_selection: 'NO', reason_text: 'r' };

type Logged = { level: string; bindings: Record<string, unknown>; line: Record<string, unknown> };

/** A pino-like logger that records its lines, with the bindings of the child that wrote them. */
function recordingLog(logged: Logged[], bindings: Record<string, unknown> = {}): DisputeFastPathParts['requestLog'] {
  return {
    info: (line: Record<string, unknown>) => logged.push({ level: 'info', bindings, line }),
    error: (line: Record<string, unknown>) => logged.push({ level: 'error', bindings, line }),
    child: (more: Record<string, unknown>) => recordingLog(logged, { ...bindings, ...more }),
  } as unknown as DisputeFastPathParts['requestLog'];
}

const storages: MemoryThrottlerStorage[] = [];

/** The fast path over fakes: a key that authenticates as acme, a submission that files dispute 99. */
function fastPathWith(overrides: Partial<DisputeFastPathParts> = {}) {
  const storage = new MemoryThrottlerStorage();
  storages.push(storage);
  const logged: Logged[] = [];
  const filed: SubmitDisputeDto[] = [];
  const touched: string[] = [];
  const counted = { requests: 0, answered: 0 };
  const parts: DisputeFastPathParts = {
    partnerKeys: { touch: (keyId) => void touched.push(keyId) },
    disputes: {
      submitDisputeByKey: async (_apiKey, input, authenticated) => {
        authenticated(PARTNER);
        filed.push(input);
        return { dispute_id: 99 };
      },
    },
    storage,
    metrics: {
      requests: { inc: () => counted.requests++ },
      latency: { observe: () => undefined },
      disputeFastPath: { inc: () => counted.answered++ },
    } as unknown as MetricsService,
    limit: 1,
    requestLog: recordingLog(logged),
    ...overrides,
  };
  return { fastPath: new DisputeFastPath(parts), parts, logged, filed, counted, touched };
}

function request(payload: unknown, headers: Record<string, string> = {}): IncomingMessage {
  const raw = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  return Object.assign(Readable.from([raw]), {
    method: 'POST',
    url: '/oracle/markets/dispute/submit',
    headers: { 'content-type': 'application/json', 'content-length': String(raw.length), 'x-api-key': 'sok_k', ...headers },
    socket: { remoteAddress: '192.0.2.1' },
    complete: true,
  }) as unknown as IncomingMessage;
}

/** A response that records what is written, and can be closed by its client, or fail. */
class FakeResponse extends EventEmitter {
  head?: string[];
  body?: string;
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;

  constructor(private readonly options: { failWriteHead?: boolean } = {}) {
    super();
  }

  writeHead(_status: number, head: string[]) {
    if (this.options.failWriteHead) throw new Error('writeHead failed');
    this.head = head;
    this.headersSent = true;
  }

  end(body: string) {
    this.body = body;
    this.writableEnded = this.writableFinished = true;
    this.emit('finish');
    this.emit('close');
  }

  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

/** What the pipeline's body middleware makes of a request handed to it. */
function bodyMiddlewareOutcome(handed: IncomingMessage): Promise<{ body?: unknown; bodyError?: unknown }> {
  const express = Object.assign(handed, { header: () => undefined }) as unknown as Request;
  return new Promise((done) =>
    new RequestContextMiddleware().use(express, { setHeader: () => undefined } as unknown as Response, () =>
      done({ body: express.body, bodyError: (express as unknown as { context: { bodyError?: unknown } }).context.bodyError }),
    ),
  );
}

/** Runs one request through the fast path until it answers, hands over, or gives up the connection. */
async function run(fastPath: DisputeFastPath, req: IncomingMessage, res = new FakeResponse()) {
  let piped: { body?: unknown; bodyError?: unknown } | undefined;
  await new Promise<void>((done) => {
    res.once('close', () => done());
    const taken = fastPath.take(req, res as unknown as ServerResponse, (handed) => {
      void bodyMiddlewareOutcome(handed).then((outcome) => {
        piped = outcome;
        done();
      });
    });
    expect(taken).toBe(true);
  });
  return { answer: res.body === undefined ? undefined : JSON.parse(res.body), head: res.head, piped, res };
}

const settle = () => new Promise((done) => setImmediate(done));

describe('DisputeFastPath', () => {
  afterEach(() => {
    for (const storage of storages.splice(0)) storage.onApplicationShutdown();
  });

  it('files a plain submission and answers it', async () => {
    const { fastPath, logged, filed, counted, touched } = fastPathWith();
    const { answer, head, piped } = await run(fastPath, request(PLAIN, { 'x-request-id': 'r-1' }));
    expect(piped).toBeUndefined();
    expect(answer).toEqual({ code: 0, msg: 'success', data: { dispute_id: 99 } });
    expect(head).toEqual(expect.arrayContaining(['x-request-id', 'r-1', 'X-RateLimit-Remaining', '0']));
    expect(filed).toEqual([expect.objectContaining({ market_id: 7, submitted_at: undefined })]);
    expect(logged).toEqual([{ level: 'info', bindings: {}, line: expect.objectContaining({ code: 0, partner: 'acme', reqId: 'r-1' }) }]);
    expect(counted).toEqual({ requests: 1, answered: 1 });
    expect(touched).toEqual(['1']); // the key's last_used_at, as the guard records it
  });

  it('takes nothing it cannot read as the pipeline does', () => {
    const { fastPath } = fastPathWith();
    const res = new FakeResponse() as unknown as ServerResponse;
    const pipeline = () => undefined;
    const refused: Record<string, string>[] = [
      { 'x-api-key': '  ' },
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/json; charset=latin1' },
      { 'content-length': '65537' },
      { 'content-encoding': 'gzip' },
      { 'transfer-encoding': 'chunked' },
    ];
    for (const headers of refused) {
      expect({ headers, taken: fastPath.take(request(PLAIN, headers), res, pipeline) }).toEqual({ headers, taken: false });
    }
    const get = Object.assign(request(PLAIN), { method: 'GET' });
    expect(fastPath.take(get, res, pipeline)).toBe(false);
    const withQuery = Object.assign(request(PLAIN), { url: '/oracle/markets/dispute/submit?x=1' });
    expect(fastPath.take(withQuery, res, pipeline)).toBe(false);
  });

  it('hands a body that is not plain to the pipeline, read, having counted nothing', async () => {
    const { fastPath, filed, counted } = fastPathWith({ limit: 1 });
    expect((await run(fastPath, request({ ...PLAIN, extra: 1 }))).piped).toEqual({ body: { ...PLAIN, extra: 1 }, bodyError: undefined });
    const malformed = await run(fastPath, request('{"market_id":'));
    expect(malformed.piped?.bodyError).toMatchObject({ type: 'entity.parse.failed' });
    expect(filed).toEqual([]);
    expect(counted).toEqual({ requests: 0, answered: 0 });
    // The budget of one is still whole: the next plain submission is answered, and spends it.
    const { answer, head } = await run(fastPath, request(PLAIN));
    expect(answer.code).toBe(0);
    expect(head).toEqual(expect.arrayContaining(['X-RateLimit-Remaining', '0']));
  });

  it('hands the request to the pipeline when its budget is spent or the counters fail', async () => {
    const { fastPath, filed } = fastPathWith({ limit: 1 });
    expect((await run(fastPath, request(PLAIN))).answer.code).toBe(0);
    expect((await run(fastPath, request(PLAIN))).piped).toEqual({ body: PLAIN, bodyError: undefined });

    const failing = fastPathWith({
      storage: { increment: async () => Promise.reject(new Error('redis down')) } as unknown as DisputeFastPathParts['storage'],
    });
    expect((await run(failing.fastPath, request(PLAIN))).piped).toEqual({ body: PLAIN, bodyError: undefined });
    expect([filed.length, failing.filed.length]).toEqual([1, 0]);
  });

  it('answers the key\'s and the filing\'s failures as the exception filter does', async () => {
    const unknownKey = fastPathWith({
      disputes: { submitDisputeByKey: async () => Promise.reject(new ApiError(ErrorCatalogue.API_KEY_INVALID)) },
    });
    const rejected = await run(unknownKey.fastPath, request(PLAIN));
    expect(rejected.answer).toEqual({ code: 4011, msg: 'invalid api key', detail: 'invalid api key' });
    expect(unknownKey.logged).toEqual([{ level: 'info', bindings: {}, line: expect.objectContaining({ code: 4011, partner: undefined }) }]);

    const disputed = fastPathWith({
      disputes: {
        submitDisputeByKey: async (_apiKey, _input, authenticated) => {
          authenticated(PARTNER);
          throw new ApiError(ErrorCatalogue.MARKET_ALREADY_DISPUTED);
        },
      },
    });
    expect((await run(disputed.fastPath, request(PLAIN))).answer.code).toBe(4091);
    expect(disputed.logged[0].line).toMatchObject({ code: 4091, partner: 'acme' });

    const databaseDown = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const down = fastPathWith({ disputes: { submitDisputeByKey: async () => Promise.reject(databaseDown) } });
    expect((await run(down.fastPath, request(PLAIN))).answer).toEqual({ code: 5030, msg: 'service unavailable', detail: 'service unavailable' });
    expect(down.logged).toEqual([{ level: 'error', bindings: {}, line: expect.objectContaining({ code: 5030 }) }]);

    const bug = fastPathWith({ disputes: { submitDisputeByKey: async () => Promise.reject(new TypeError('x is undefined')) } });
    const internal = await run(bug.fastPath, request(PLAIN, { 'x-request-id': 'r-bug' }));
    expect(internal.answer).toEqual({ code: 5000, msg: 'internal error', detail: 'internal error' });
    // Logged as the exception filter's Logger('Errors') logs it inside a request: findable by its id.
    expect(bug.logged[0]).toEqual({
      level: 'error',
      bindings: { reqId: 'r-bug' },
      line: { context: 'Errors', requestId: 'r-bug', route: '/oracle/markets/dispute/submit', err: expect.any(TypeError) },
    });
  });

  it('logs a client gone before its answer as pino-http does, and answers and counts nothing for it', async () => {
    let release = () => undefined as void;
    const { fastPath, logged, filed, counted } = fastPathWith({
      disputes: {
        submitDisputeByKey: async (_apiKey, input) => {
          await new Promise<void>((done) => (release = done));
          filed.push(input);
          return { dispute_id: 99 };
        },
      },
    });
    const res = new FakeResponse();
    const running = run(fastPath, request(PLAIN, { 'x-request-id': 'r-gone' }), res);
    await settle();
    await settle();
    res.destroy(); // the client hangs up while its dispute is being filed
    await running;
    release();
    await settle();
    expect(filed).toHaveLength(1); // as in the pipeline, the filing goes on
    expect(res.body).toBeUndefined();
    expect(counted).toEqual({ requests: 0, answered: 0 });
    expect(logged).toEqual([{ level: 'info', bindings: {}, line: expect.objectContaining({ reqId: 'r-gone', res: { statusCode: 200, headersSent: false } }) }]);
    expect(logged[0].line).not.toHaveProperty('code');
  });

  it('answers a failure of its own 5000, or closes the connection, and logs it', async () => {
    const { fastPath, logged } = fastPathWith();
    const { res } = await run(fastPath, request(PLAIN, { 'x-request-id': 'r-fail' }), new FakeResponse({ failWriteHead: true }));
    expect(res.destroyed).toBe(true);
    expect(logged).toEqual(
      expect.arrayContaining([
        { level: 'error', bindings: { reqId: 'r-fail' }, line: expect.objectContaining({ context: 'Errors', err: expect.objectContaining({ message: 'writeHead failed' }) }) },
      ]),
    );
  });
});
