import { afterEach, describe, expect, it } from '@jest/globals';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JsonText } from '../common/json-text';
import { MemoryThrottlerStorage } from '../observability/memory-throttler-storage';
import type { MetricsService } from '../observability/metrics.service';
import type { MarketsService } from './markets.service';
import { PublicReadFastPath, type FastPathParts } from './public-read-fast-path';

const RECORD = new JsonText('{"markets":[]}');

/** The fast path over fakes: one cached record (source `acme`, slug `m`), a real rate-limit store. */
function fastPathWith(overrides: Partial<FastPathParts> = {}) {
  const logged: unknown[] = [];
  const counted = { requests: 0 };
  const parts: FastPathParts = {
    markets: {
      cachedPublicMarkets: ({ source, slug }: { source: string; slug: string }) =>
        source === 'acme' && slug === 'm' ? RECORD : undefined,
    } as unknown as MarketsService,
    storage: new MemoryThrottlerStorage(),
    metrics: {
      requests: { labels: () => ({ inc: () => counted.requests++ }) },
      latency: { labels: () => ({ observe: () => undefined }) },
    } as unknown as MetricsService,
    limit: 2,
    trustProxy: () => false,
    requestLog: { info: (line: unknown) => logged.push(line) } as unknown as FastPathParts['requestLog'],
    ...overrides,
  };
  return { fastPath: new PublicReadFastPath(parts), parts, logged, counted };
}

function request(url: string, headers: Record<string, string> = {}, method = 'GET'): IncomingMessage {
  const socket = { remoteAddress: '192.0.2.1' };
  return { method, url, headers, socket, connection: socket } as unknown as IncomingMessage;
}

/** A response that records what is written, or throws on writeHead when told to. */
function response(options: { failWriteHead?: boolean } = {}) {
  const sent: { head?: string[]; body?: string; destroyed: boolean } = { destroyed: false };
  const res = {
    headersSent: false,
    writeHead(status: number, headers: string[]) {
      if (options.failWriteHead) throw new Error('writeHead failed');
      expect(status).toBe(200);
      sent.head = headers;
      res.headersSent = true;
    },
    end(body: string) {
      sent.body = body;
    },
    destroy() {
      sent.destroyed = true;
    },
  };
  return { res: res as unknown as ServerResponse, sent };
}

const settle = () => new Promise((done) => setImmediate(done));

describe('PublicReadFastPath', () => {
  const storages: MemoryThrottlerStorage[] = [];
  afterEach(() => {
    for (const storage of storages.splice(0)) storage.onApplicationShutdown?.();
  });
  const make = (overrides: Partial<FastPathParts> = {}) => {
    const made = fastPathWith(overrides);
    storages.push(made.parts.storage as MemoryThrottlerStorage);
    return made;
  };

  it('answers a cached record with the envelope, the rate-limit headers, a metric and a log line', async () => {
    const { fastPath, logged, counted } = make();
    const { res, sent } = response();
    const pipeline = { calls: 0 };
    expect(fastPath.take(request('/oracle/markets/public?slug=m&source=acme', { 'x-request-id': 'r-1' }), res, () => pipeline.calls++)).toBe(true);
    await settle();
    expect(pipeline.calls).toBe(0);
    expect(sent.body).toBe('{"code":0,"msg":"success","data":{"markets":[]}}');
    const head = sent.head!;
    const header = (name: string) => head[head.indexOf(name) + 1];
    expect([header('x-request-id'), header('X-RateLimit-Limit'), header('X-RateLimit-Remaining'), header('X-RateLimit-Reset')]).toEqual(['r-1', '2', '1', '60']);
    expect(header('Content-Length')).toBe(String(Buffer.byteLength(sent.body!)));
    expect(counted.requests).toBe(1);
    expect(logged).toEqual([expect.objectContaining({ reqId: 'r-1', route: '/oracle/markets/public', code: 0 })]);
  });

  it('takes nothing that is not a plain read of a cached record', () => {
    const { fastPath } = make();
    for (const [url, headers, method] of [
      ['/oracle/markets/public?slug=other&source=acme', {}, 'GET'],
      ['/oracle/markets/public?slug=m&source=acme&x=1', {}, 'GET'],
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

  it('leaves a caller over its limit to the pipeline, after counting the hit once', async () => {
    const { fastPath } = make({ limit: 1 });
    const url = '/oracle/markets/public?slug=m&source=acme';
    const pipeline = { calls: 0 };
    for (let i = 0; i < 3; i++) fastPath.take(request(url), response().res, () => pipeline.calls++);
    await settle();
    expect(pipeline.calls).toBe(2);
  });

  it('leaves the request to the pipeline when the rate-limit store fails, or when answering fails', async () => {
    const failing = make({ storage: { increment: () => Promise.reject(new Error('redis down')) } });
    const pipeline = { calls: 0 };
    failing.fastPath.take(request('/oracle/markets/public?slug=m&source=acme'), response().res, () => pipeline.calls++);
    await settle();
    expect(pipeline.calls).toBe(1);

    const { fastPath } = make();
    const { res, sent } = response({ failWriteHead: true });
    fastPath.take(request('/oracle/markets/public?slug=m&source=acme'), res, () => pipeline.calls++);
    await settle();
    expect(pipeline.calls).toBe(2);
    expect(sent.destroyed).toBe(false);
  });
});
