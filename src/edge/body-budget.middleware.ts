import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { edgeConfig, type EdgeConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';
import { ByteBudget } from '../common/byte-budget';
import { clientOf } from '../common/client-address';
import { ErrorCatalogue } from '../common/error-catalogue';
import { shedRequest } from './shed';

export const BODY_LIMIT_BYTES = 64 * 1024;

// The guards' database and Redis work come before a body's request takes its place among those in progress, so
// this floor bounds how many such requests are worked on at once.
const BODY_COUNTS_AT_LEAST = 2 * 1024;

/** Whether `req` comes with a body (a length, or chunks). */
function hasBody(req: Request): boolean {
  return req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
}

/** POST is the one method whose routes take a body; any other body is not read, holds nothing, and Node drops it. */
export function readsBody(req: Request): boolean {
  return req.method === 'POST' && hasBody(req);
}

/** Undefined when chunked or compressed: the limit is on what a compressed body inflates to. */
export function declaredLength(req: Request): number | undefined {
  const compressed = (req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity';
  const declared = req.headers['content-length'];
  return compressed || declared === undefined ? undefined : Number(declared);
}

// A body declared over the limit is refused without being held (it is read off), so it counts the least.
function bytesToHold(req: Request): number {
  if (!readsBody(req)) return 0;
  const length = declaredLength(req);
  if (length === undefined) return BODY_LIMIT_BYTES;
  return length <= BODY_LIMIT_BYTES ? Math.max(length, BODY_COUNTS_AT_LEAST) : BODY_COUNTS_AT_LEAST;
}

// Bodies in progress are held in memory together: at most MAX_BODY_BYTES_IN_FLIGHT by declared length, an address a
// quarter (ByteBudget), else 4290 / 5031 before the guards' work. Bodies are read only once the guards let their
// requests in (JsonBodyInterceptor), so a refused request gives its bytes back as soon as it is answered.
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
