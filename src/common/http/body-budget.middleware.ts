import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { Environment } from '../../config/environment';
import { MetricsService } from '../../observability/metrics.service';
import { ByteBudget } from '../byte-budget';
import { clientOf } from '../client-address';
import { ErrorCatalogue } from '../error-catalogue';
import { BODY_LIMIT_BYTES } from '../json-body.interceptor';
import { shedRequest } from './shed';

/**
 * What reading `req`'s body may hold in memory: its declared length, or the limit when it comes
 * in chunks or compressed. A body declared over the limit is refused without being held (it is
 * read off).
 */
function bytesToHold(req: Request): number {
  const compressed = (req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity';
  if (compressed) return BODY_LIMIT_BYTES;
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    const length = Number(declared);
    return length <= BODY_LIMIT_BYTES ? length : 0;
  }
  return req.headers['transfer-encoding'] === undefined ? 0 : BODY_LIMIT_BYTES;
}

/**
 * The request bodies read and worked on are held in memory together, so the process holds at
 * most MAX_BODY_BYTES_IN_FLIGHT of them (by declared length), from their headers until their
 * answers are written, and one client address at most a quarter of that (ByteBudget). Beyond its
 * share, 4290; beyond the whole, 5031; both with Retry-After at once, before the guards' database
 * and Redis work. Without the bound, a few thousand connections trickling 64 KiB bodies at once
 * exhausted the heap. A body is read only once the guards let its request in
 * (JsonBodyInterceptor): a request they refuse gives its bytes back as soon as it is answered.
 * Requests without a body never wait on it.
 */
@Injectable()
export class BodyBudgetMiddleware implements NestMiddleware {
  private readonly budget: ByteBudget;

  constructor(
    @Inject(ConfigService) config: ConfigService<Environment, true>,
    private readonly metrics: MetricsService,
  ) {
    this.budget = new ByteBudget(config.get('MAX_BODY_BYTES_IN_FLIGHT', { infer: true }), BODY_LIMIT_BYTES);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const size = bytesToHold(req);
    if (size === 0) return next();
    const client = clientOf(req);
    const refusal = this.budget.take(client, size);
    if (refusal === 'client') {
      throw shedRequest(this.metrics, res, 'client-bodies', ErrorCatalogue.TOO_MANY_REQUESTS, 'too many request bodies in progress from this address');
    }
    if (refusal === 'process') throw shedRequest(this.metrics, res, 'bodies', ErrorCatalogue.SERVER_BUSY, 'too many request bodies in progress');
    this.metrics.bodyBytesHeld.set(this.budget.held);
    // 'close' comes once the answer is written or never will be, also for a pipelined request
    // whose connection closed before its turn (on-finished waits for a socket it never gets).
    res.once('close', () => {
      this.budget.give(client, size);
      this.metrics.bodyBytesHeld.set(this.budget.held);
    });
    next();
  }
}
