import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import type { EdgeConfig } from '../config/configuration';
import type { ServiceRequest } from '../common/request-context';
import { MetricsService } from '../observability/metrics.service';
import { LoadSheddingMiddleware } from './load-shedding.middleware';

/** A GET without a body, its response an emitter whose 'close' the test sends. */
function request(): { req: ServiceRequest; res: Response } {
  const req = { path: '/oracle/markets/changes', method: 'GET', headers: {}, socket: { remoteAddress: '127.0.0.1' }, context: { requestId: 'r', client: '127.0.0.1' } };
  const res = Object.assign(new EventEmitter(), { writeHead: () => undefined, getHeader: () => undefined });
  return { req: req as unknown as ServiceRequest, res: res as unknown as Response };
}

describe('LoadSheddingMiddleware', () => {
  it('counts a long poll woken to work again, so that admission and the in-flight gauge agree', async () => {
    const metrics = new MetricsService(...([undefined, undefined] as unknown as ConstructorParameters<typeof MetricsService>));
    const shedding = new LoadSheddingMiddleware({ maxRequestsInFlight: 1, maxUnreadAnswerBytes: 1024 * 1024 } as EdgeConfig, metrics);
    const inFlight = async () => (await metrics.inFlight.get()).values[0].value;
    const poll = request();
    shedding.use(poll.req as unknown as Request, poll.res, () => undefined);
    expect(await inFlight()).toBe(1);
    poll.req.context.place!.leave();
    expect(await inFlight()).toBe(0);
    poll.req.context.place!.take();
    expect(await inFlight()).toBe(1);
    const other = request();
    expect(() => shedding.use(other.req as unknown as Request, other.res, () => undefined)).toThrow(expect.objectContaining({ code: 5031 }));
    poll.res.emit('close');
    expect(await inFlight()).toBe(0);
    shedding.use(other.req as unknown as Request, other.res, () => undefined);
    expect(await inFlight()).toBe(1);
  });
});
