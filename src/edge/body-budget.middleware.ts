import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { edgeConfig, type EdgeConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';
import { ByteBudget } from '../common/byte-budget';
import { clientOf } from '../common/client-address';
import { ErrorCatalogue } from '../common/error-catalogue';
import { shedRequest } from './shed';

export const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * What a request with a body counts at least: its guards' database and Redis work come before
 * its place among the requests in progress (taken once its body is read), so this budget bounds
 * how many such requests are worked on at once (4,096 with the default 8 MiB).
 */
const BODY_COUNTS_AT_LEAST = 2 * 1024;

/** Whether `req` comes with a body (a length, or chunks). */
function hasBody(req: Request): boolean {
  return req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Whether `req`'s body is read (JsonBodyInterceptor): it has one, and is a POST, the one method
 * whose routes take a body. Any other body is not read, holds nothing and is thrown away by Node.
 */
export function readsBody(req: Request): boolean {
  return req.method === 'POST' && hasBody(req);
}

/**
 * The Content-Length of a body sent as is; undefined when it comes in chunks or compressed (the
 * limit is on what a compressed body inflates to).
 */
export function declaredLength(req: Request): number | undefined {
  const compressed = (req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity';
  const declared = req.headers['content-length'];
  return compressed || declared === undefined ? undefined : Number(declared);
}

/**
 * What reading `req`'s body may hold in memory: its declared length, or the limit when it comes
 * in chunks or compressed; at least BODY_COUNTS_AT_LEAST. A body declared over the limit is
 * refused without being held (it is read off), and counts that least.
 */
function bytesToHold(req: Request): number {
  if (!readsBody(req)) return 0;
  const length = declaredLength(req);
  if (length === undefined) return BODY_LIMIT_BYTES;
  return length <= BODY_LIMIT_BYTES ? Math.max(length, BODY_COUNTS_AT_LEAST) : BODY_COUNTS_AT_LEAST;
}

/**
 * The request bodies read and worked on are held in memory together, so the process holds at
 * most MAX_BODY_BYTES_IN_FLIGHT of them (by declared length, 2 KiB at least), from their
 * headers until their answers are written, and one client address at most a quarter of that
 * (ByteBudget). Beyond its share, 4290; beyond the whole, 5031; both with Retry-After at once,
 * before the guards' database and Redis work. Without the bound, a few thousand connections
 * trickling 64 KiB bodies at once exhausted the heap. A body is read only once the guards let
 * its request in (JsonBodyInterceptor): a request they refuse gives its bytes back as soon as
 * it is answered. Requests without a body never wait on it.
 */
@Injectable()
export class BodyBudgetMiddleware implements NestMiddleware {
  private readonly budget: ByteBudget;

  constructor(
    @Inject(edgeConfig.KEY) config: EdgeConfig,
    private readonly metrics: MetricsService,
  ) {
    this.budget = new ByteBudget(config.maxBodyBytesInFlight, BODY_LIMIT_BYTES);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const size = bytesToHold(req);
    if (size === 0) return next();
    const client = clientOf(req);
    const refusal = this.budget.take(client, size);
    if (refusal === 'client') {
      throw shedRequest(this.metrics, 'client-bodies', ErrorCatalogue.TOO_MANY_REQUESTS, 'too many request bodies in progress from this address');
    }
    if (refusal === 'process') throw shedRequest(this.metrics, 'bodies', ErrorCatalogue.SERVER_BUSY, 'too many request bodies in progress');
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
