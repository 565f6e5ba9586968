import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { Socket } from 'node:net';
import type { Environment } from '../../config/environment';
import { MetricsService } from '../../observability/metrics.service';
import { ApiError, ErrorCatalogue } from '../error-catalogue';

/** The answers in progress on each connection, oldest first. */
const inProgress = new WeakMap<Socket, Set<Response>>();

/** The answers still owed on `socket`, oldest first (ProtocolErrors reads them). */
export function answersOwedOn(socket: Socket): Response[] {
  return [...(inProgress.get(socket) ?? [])];
}

/**
 * At most MAX_REQUESTS_PER_CONNECTION requests in progress on one connection. A client that
 * pipelines requests without reading the answers got every one of them worked on at once,
 * until the heap ran out; now the ones beyond the limit are answered 4290 at once, before any
 * work, and Node stops reading the connection once those answers are not read either.
 */
@Injectable()
export class ConnectionLimitMiddleware implements NestMiddleware {
  private readonly limit: number;

  constructor(
    @Inject(ConfigService) config: ConfigService<Environment, true>,
    private readonly metrics: MetricsService,
  ) {
    this.limit = config.get('MAX_REQUESTS_PER_CONNECTION', { infer: true });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const socket = req.socket;
    let answers = inProgress.get(socket);
    if (!answers) inProgress.set(socket, (answers = new Set()));
    if (answers.size >= this.limit) {
      this.metrics.shed.inc({ reason: 'connection' });
      res.setHeader('Retry-After', '1');
      throw new ApiError(ErrorCatalogue.TOO_MANY_REQUESTS, 'too many requests in progress on this connection');
    }
    answers.add(res);
    res.once('close', () => answers.delete(res));
    next();
  }
}
