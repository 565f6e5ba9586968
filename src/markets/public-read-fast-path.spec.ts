import { afterEach, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JsonText } from '../common/json-text';
import { MemoryThrottlerStorage } from '../observability/memory-throttler-storage';
import type { MetricsService } from '../observability/metrics.service';
import type { MarketsService } from './markets.service';
import { PublicReadFastPath, type FastPathParts } from './public-read-fast-path';

const RECORD = new JsonText('{"markets":[]}');

/** A request logger whose `info` (and `error`) are given; by default its error lines go nowhere. */
function quietLog(methods: { info: (line: unknown) => unknown; error?: (line: unknown) => unknown }): FastPathParts['requestLog'] {
  const log = { error: () => undefined, ...methods, child: () => log };
  return log as unknown as FastPathParts['requestLog'];
}

/**
 * The fast path over fakes: the cache holds the records of `cached` (by default source `acme`,
 * slug `m`; `evict` empties it), the database answers every other read with RECORD (or with
 * `loadFails`' error), the rate-limit store is a real one unless replaced.
 */
function fastPathWith(
  overrides: Partial<FastPathParts> = {},
  cached = (source: string, slug: string) => source === 'acme' && slug === 'm',
  loadFails?: Error,
) {
  const logged: unknown[] = [];
  const errors: unknown[] = [];
  const counted = { requests: 0, answered: 0, served: 0, loaded: 0 };
  let evicted = false;
  const holds = ({ source, slug }: { source: string; slug: string }) => !evicted && cached(source, slug);
  const parts: FastPathParts = {
    markets: {
      cachedPublicMarkets: (query: { source: string; slug: string }) => {
        if (!holds(query)) return undefined;
        counted.served++;
        return RECORD;
      },
      findPublicMarkets: async () => {
        counted.loaded++;
        if (loadFails) throw loadFails;
        return RECORD;
      },
    } as unknown as MarketsService,
    storage: new MemoryThrottlerStorage(),
    metrics: {
      requests: { labels: () => ({ inc: () => counted.requests++ }), inc: () => counted.requests++ },
      latency: { labels: () => ({ observe: () => undefined }), observe: () => undefined },
      publicFastPath: { inc: () => counted.answered++ },
    } as unknown as MetricsService,
    limit: 2,
    trustProxy: () => false,
    requestLog: quietLog({ info: (line: unknown) => logged.push(line), error: (line: unknown) => errors.push(line) }),
    ...overrides,
  };
  return { fastPath: new PublicReadFastPath(parts), parts, logged, errors, counted, evict: () => (evicted = true) };
}

function request(url: string, headers: Record<string, string> = {}, method = 'GET'): IncomingMessage {
  const socket = { remoteAddress: '192.0.2.1', destroyed: false };
  return { method, url, headers, socket, connection: socket } as unknown as IncomingMessage;
}

/** A response that records what is written, or throws on writeHead when told to; `close()` is its connection closing. */
function response(options: { failWriteHead?: boolean } = {}) {
  const sent: { head?: string[]; body?: string; destroyed: boolean } = { destroyed: false };
  const closeListeners: (() => void)[] = [];
  const res = {
    headersSent: false,
    writableEnded: false,
    writableFinished: false,
    writeHead(status: number, headers: string[]) {
      if (options.failWriteHead) throw new Error('writeHead failed');
      expect(status).toBe(200);
      sent.head = headers;
      res.headersSent = true;
    },
    end(body: string) {
      sent.body = body;
      res.writableEnded = res.writableFinished = true;
    },
    destroy() {
      sent.destroyed = true;
    },
    once(event: string, listener: () => void) {
      if (event === 'close') closeListeners.push(listener);
      return res;
    },
  };
  const close = () => closeListeners.splice(0).forEach((listener) => listener());
  return { res: res as unknown as ServerResponse, sent, close };
}

const settle = () => new Promise((done) => setImmediate(done));

/** A plain read of acme's record `m`. */
const READ = '/oracle/markets/public?slug=m&source=acme';

/**
 * Offers a plain read (with `headers`) to `fastPath` and lets it run to its end: whether it
 * was taken, what was sent, and whether the pipeline got it.
 */
async function readToEnd(fastPath: PublicReadFastPath, headers: Record<string, string> = {}, options: { failWriteHead?: boolean } = {}) {
  const { res, sent } = response(options);
  let piped = false;
  const taken = fastPath.take(request(READ, headers), res, () => void (piped = true));
  await settle();
  return { taken, sent, piped };
}

describe('PublicReadFastPath', () => {
  const storages: MemoryThrottlerStorage[] = [];
  afterEach(() => {
    for (const storage of storages.splice(0)) storage.onApplicationShutdown?.();
  });
  const make = (overrides: Partial<FastPathParts> = {}, cached?: (source: string, slug: string) => boolean, loadFails?: Error) => {
    const made = fastPathWith(overrides, cached, loadFails);
    storages.push(made.parts.storage as MemoryThrottlerStorage);
    return made;
  };

  it('answers a cached record with the envelope, the rate-limit headers, a metric and a log line', async () => {
    const { fastPath, logged, counted } = make();
    const { taken, sent, piped } = await readToEnd(fastPath, { 'x-request-id': 'r-1' });
    expect([taken, piped]).toEqual([true, false]);
    expect(sent.body).toBe('{"code":0,"msg":"success","data":{"markets":[]}}');
    const head = sent.head!;
    const header = (name: string) => head[head.indexOf(name) + 1];
    expect([header('x-request-id'), header('X-RateLimit-Limit'), header('X-RateLimit-Remaining'), header('X-RateLimit-Reset')]).toEqual(['r-1', '2', '1', '60']);
    expect(header('Content-Length')).toBe(String(Buffer.byteLength(sent.body!)));
    expect(counted).toEqual({ requests: 1, answered: 1, served: 1, loaded: 0 });
    expect(logged).toEqual([expect.objectContaining({ reqId: 'r-1', route: '/oracle/markets/public', code: 0 })]);
  });

  it('takes nothing that is not a plain public read', () => {
    const { fastPath } = make();
    for (const [url, headers, method] of [
      ['/oracle/markets/public?slug=m&source=acme&x=1', {}, 'GET'],
      ['/oracle/markets/public?slug=m', {}, 'GET'],
      ['/oracle/markets/public?slug=m&slug=n&source=acme', {}, 'GET'],
      ['/oracle/markets/public?slug=m&source=acme', {}, 'HEAD'],
      ['/oracle/markets/public?slug=m&source=acme', { 'content-length': '2' }, 'GET'],
      ['/oracle/markets/public?slug=m&source=acme#x', {}, 'GET'],
      ['/oracle/markets/public/?slug=m&source=acme', {}, 'GET'],
      ['/oracle/markets/public', {}, 'GET'],
    ] as const) {
      const { res, sent } = response();
      expect({ url, method, taken: fastPath.take(request(url, headers, method), res, () => undefined) }).toEqual({ url, method, taken: false });
      expect(sent.head).toBeUndefined();
    }
  });

  it('takes no URL that Express would parse another way, whatever the cache holds', async () => {
    const { fastPath, counted } = make({}, () => true);
    for (const url of ['/oracle/markets/public?slug=m&source=acme#x', '/oracle/markets/public?slug=m&source=ac\u00a0me']) {
      expect({ url, taken: fastPath.take(request(url), response().res, () => undefined) }).toEqual({ url, taken: false });
    }
    expect(fastPath.take(request(READ), response().res, () => undefined)).toBe(true);
    expect(counted.served).toBe(0); // deciding counts nothing
    await settle();
    expect(counted.served).toBe(1);
  });

  it('leaves a caller over its limit to the pipeline, counting each request once and no cache hit', async () => {
    const increments: string[] = [];
    const store = new MemoryThrottlerStorage();
    const { fastPath, counted } = make({
      limit: 1,
      storage: {
        increment: (...args: Parameters<MemoryThrottlerStorage['increment']>) => {
          increments.push(args[0]);
          return store.increment(...args);
        },
      },
    });
    storages.push(store);
    const url = '/oracle/markets/public?slug=m&source=acme';
    const pipeline = { calls: 0 };
    for (let i = 0; i < 3; i++) fastPath.take(request(url), response().res, () => pipeline.calls++);
    await settle();
    expect(pipeline.calls).toBe(2);
    expect(increments).toHaveLength(3);
    expect(new Set(increments).size).toBe(1);
    expect(counted).toEqual({ requests: 1, answered: 1, served: 1, loaded: 0 });
  });

  it('reads a record the cache does not hold as the handler does, from the database', async () => {
    const { fastPath, counted, logged } = make({}, () => false);
    const { taken, sent, piped } = await readToEnd(fastPath, { 'x-request-id': 'r-2' });
    expect([taken, piped]).toEqual([true, false]);
    expect(sent.body).toBe('{"code":0,"msg":"success","data":{"markets":[]}}');
    expect(counted).toEqual({ requests: 1, answered: 1, served: 0, loaded: 1 });
    expect(logged).toEqual([expect.objectContaining({ reqId: 'r-2', code: 0 })]);
  });

  it('reads the record after counting: evicted meanwhile, it is read from the database', async () => {
    let release!: (record: Awaited<ReturnType<MemoryThrottlerStorage['increment']>>) => void;
    const { fastPath, evict, counted } = make({ storage: { increment: () => new Promise((done) => (release = done)) } });
    const { res, sent } = response();
    const pipeline = { calls: 0 };
    expect(fastPath.take(request(READ), res, () => pipeline.calls++)).toBe(true);
    evict(); // a write is acknowledged while the counter is updated (Redis)
    release({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    await settle();
    expect(pipeline.calls).toBe(0);
    expect(sent.body).toBeDefined();
    expect([counted.served, counted.loaded]).toEqual([0, 1]);
  });

  it('answers a database out of reach and a bug as the exception filter does', async () => {
    const databaseDown = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const down = make({}, () => false, databaseDown);
    const unavailable = await readToEnd(down.fastPath);
    expect(JSON.parse(unavailable.sent.body!)).toEqual({ code: 5030, msg: 'service unavailable', detail: 'service unavailable' });
    expect(down.errors).toEqual([expect.objectContaining({ code: 5030 })]); // its request line, at error level

    const bug = make({}, () => false, new TypeError('x is undefined'));
    const internal = await readToEnd(bug.fastPath, { 'x-request-id': 'r-bug' });
    expect(JSON.parse(internal.sent.body!)).toEqual({ code: 5000, msg: 'internal error', detail: 'internal error' });
    expect(bug.errors).toEqual([
      // As the exception filter logs it: the route is the request's URL (its originalUrl).
      { context: 'Errors', requestId: 'r-bug', route: '/oracle/markets/public?slug=m&source=acme', err: expect.any(TypeError) },
      expect.objectContaining({ reqId: 'r-bug', code: 5000 }),
    ]);
    expect([down.counted.requests, bug.counted.requests]).toEqual([1, 1]);
  });

  it('answers 5000 for a bug once the request is taken, never leaving it without an answer', async () => {
    const { fastPath, parts, errors } = make();
    (parts.markets as unknown as { cachedPublicMarkets: () => unknown }).cachedPublicMarkets = () => {
      throw new TypeError('cache bug');
    };
    const { sent, piped } = await readToEnd(fastPath, { 'x-request-id': 'r-bug' });
    expect(piped).toBe(false);
    expect(JSON.parse(sent.body!)).toEqual({ code: 5000, msg: 'internal error', detail: 'internal error' });
    expect(errors).toEqual([
      expect.objectContaining({ context: 'Errors', requestId: 'r-bug', err: expect.any(TypeError) }),
      expect.objectContaining({ reqId: 'r-bug', code: 5000 }),
    ]);
  });

  it('logs a client gone before its answer as pino-http does, and answers and counts nothing for it', async () => {
    let release!: (record: Awaited<ReturnType<MemoryThrottlerStorage['increment']>>) => void;
    const { fastPath, logged, counted } = make({ storage: { increment: () => new Promise((done) => (release = done)) } });
    const { res, sent, close } = response();
    const pipeline = { calls: 0 };
    fastPath.take(request(READ, { 'x-request-id': 'r-gone' }), res, () => pipeline.calls++);
    close(); // the client hangs up while its request is counted
    release({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    await settle();
    expect(pipeline.calls).toBe(0);
    expect(sent.head).toBeUndefined();
    expect(counted).toEqual({ requests: 0, answered: 0, served: 0, loaded: 0 });
    expect(logged).toEqual([expect.objectContaining({ reqId: 'r-gone', res: { statusCode: 200, headersSent: false } })]);
    expect(logged[0]).not.toHaveProperty('code');
  });

  it('keeps an answer that was sent when the log line fails', async () => {
    const { fastPath } = make({ requestLog: quietLog({ info: () => { throw new Error('log failed'); } }) });
    const { sent, piped } = await readToEnd(fastPath);
    expect(piped).toBe(false);
    expect(sent.body).toBeDefined();
    expect(sent.destroyed).toBe(false);
  });

  it('leaves the request to the pipeline when the rate-limit store fails or throws, or when answering fails', async () => {
    const failing = make({ storage: { increment: () => Promise.reject(new Error('redis down')) } });
    expect((await readToEnd(failing.fastPath)).piped).toBe(true);

    const throwing = make({ storage: { increment: () => { throw new Error('store bug'); } } });
    expect((await readToEnd(throwing.fastPath)).piped).toBe(true);

    const unwritable = await readToEnd(make().fastPath, {}, { failWriteHead: true });
    expect(unwritable.piped).toBe(true);
    expect(unwritable.sent.destroyed).toBe(false);
  });
});
