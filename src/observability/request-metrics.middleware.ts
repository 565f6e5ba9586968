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

@Injectable()
export class RequestMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const stop = process.hrtime.bigint();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeOf(req), code: codeOf(res) };
      this.metrics.requests.inc(labels);
      this.metrics.latency.observe(labels, Number(process.hrtime.bigint() - stop) / 1e9);
    });
    next();
  }
}
