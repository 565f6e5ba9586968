import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { clientOf } from '../common/client-address';
import { MetricsService } from './metrics.service';
import { codeOf, routeOf } from './request-log';

/** Every request, once answered or abandoned, is counted and timed; its log line is nestjs-pino's (requestLogOptions). */
@Injectable()
export class RequestObservationMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const started = performance.now();
    // Read now: the peer address is gone once the socket is closed, and the log line names it.
    clientOf(req);
    res.once('close', () => this.metrics.observeRequest(req.method, routeOf(req), codeOf(res), (performance.now() - started) / 1000));
    next();
  }
}
