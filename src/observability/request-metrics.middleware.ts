import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { MetricsService } from './metrics.service';

/**
 * The route template a request matched, or "unmatched" (unknown paths must not explode the
 * label set; Nest answers them from a catch-all `{/*splat}` route).
 */
export function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && !path.includes('*') ? `${req.baseUrl}${path}` : 'unmatched';
}

/** The envelope code of a response, or its HTTP status outside the envelope. */
export function codeOf(res: Response): string {
  return String(res.locals.envelopeCode ?? res.statusCode);
}

/** Counts every answer and observes its duration, by method, route and envelope code. */
@Injectable()
export class RequestMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const started = performance.now();
    res.once('finish', () => this.metrics.observeRequest(req.method, routeOf(req), codeOf(res), (performance.now() - started) / 1000));
    next();
  }
}
