import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import onHeaders from 'on-headers';
import type { Environment } from '../../config/environment';
import { MetricsService } from '../../observability/metrics.service';
import { ApiError, ErrorCatalogue } from '../error-catalogue';

// Probes and the scraper must be answered however busy the instance is.
const NEVER_SHED = /^\/(health|metrics)(\/|$)/;

/**
 * At most MAX_REQUESTS_IN_FLIGHT requests worked on in this process at once: counted from when
 * their bodies are read (slow uploads do not take the places of requests ready to run) until
 * their answers are written (clients that do not read their answers do not keep the places;
 * what waits unread is bounded per connection: ConnectionLimits). Beyond it, 5031 "server busy"
 * with Retry-After, at once: before any database or Redis work, instead of a queue that grows
 * until every answer is late or the heap runs out.
 */
@Injectable()
export class LoadSheddingMiddleware implements NestMiddleware {
  private readonly limit: number;
  private inFlight = 0;

  constructor(
    @Inject(ConfigService) config: ConfigService<Environment, true>,
    private readonly metrics: MetricsService,
  ) {
    this.limit = config.get('MAX_REQUESTS_IN_FLIGHT', { infer: true });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if (NEVER_SHED.test(req.path)) return next();
    if (this.inFlight >= this.limit) {
      this.metrics.shed.inc({ reason: 'process' });
      res.setHeader('Retry-After', '1');
      throw new ApiError(ErrorCatalogue.SERVER_BUSY);
    }
    this.inFlight++;
    this.metrics.inFlight.inc();
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      this.inFlight--;
      this.metrics.inFlight.dec();
    };
    // Written (the head goes with the body: every answer is sent whole), or never to be: the
    // response's 'close' also comes when its connection closes, before its turn included (a
    // pipelined request without a socket, which on-finished would wait on for good).
    onHeaders(res, release);
    res.once('close', release);
    next();
  }
}
