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
  const metrics = new MetricsService(...([undefined, undefined] as unknown as ConstructorParameters<typeof MetricsService>));
  const inFlight = async () => (await metrics.inFlight.get()).values[0].value;
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('counts woken long polls again, in turn, at most half the places, never refused', async () => {
    const shedding = new LoadSheddingMiddleware({ maxRequestsInFlight: 2, maxUnreadAnswerBytes: 1024 * 1024 } as EdgeConfig, metrics);
    const enter = () => {
      const r = request();
      shedding.use(r.req as unknown as Request, r.res, () => undefined);
      return r;
    };
    const [a, b] = [enter(), enter()];
    a.req.context.place!.leave();
    b.req.context.place!.leave();
    expect(await inFlight()).toBe(0);
    const ordinary = enter();
    const resumed: string[] = [];
    void a.req.context.place!.resume().then(() => resumed.push('a'));
    void b.req.context.place!.resume().then(() => resumed.push('b'));
    await settle();
    expect({ resumed, inFlight: await inFlight() }).toEqual({ resumed: ['a'], inFlight: 2 });
    // The other place stays the ordinary requests': b waits for a's, not for the ordinary one's.
    ordinary.res.emit('close');
    await settle();
    expect({ resumed, inFlight: await inFlight() }).toEqual({ resumed: ['a'], inFlight: 1 });
    a.res.emit('close');
    await settle();
    expect({ resumed, inFlight: await inFlight() }).toEqual({ resumed: ['a', 'b'], inFlight: 1 });
    b.res.emit('close');
    expect(await inFlight()).toBe(0);
  });

  it('lets a woken long poll whose client leaves in the queue go without a place', async () => {
    const shedding = new LoadSheddingMiddleware({ maxRequestsInFlight: 2, maxUnreadAnswerBytes: 1024 * 1024 } as EdgeConfig, metrics);
    const polls = [request(), request()];
    for (const poll of polls) {
      shedding.use(poll.req as unknown as Request, poll.res, () => undefined);
      poll.req.context.place!.leave();
    }
    const [first, second] = polls.map((poll) => poll.req.context.place!.resume());
    await first;
    polls[1].res.emit('close');
    await second;
    expect(await inFlight()).toBe(1);
    polls[0].res.emit('close');
    expect(await inFlight()).toBe(0);
  });
});
