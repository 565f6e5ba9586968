import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, Response } from 'express';
import type { Socket } from 'node:net';
import type { Environment } from '../../config/environment';
import { MetricsService } from '../../observability/metrics.service';
import { ApiError, ErrorCatalogue } from '../error-catalogue';

/** The answers in progress on each connection, oldest first. */
const inProgress = new WeakMap<Socket, Set<Response>>();

/**
 * Refusals (4290) waiting to be sent, process-wide. A refusal goes out only after the answers
 * before it on its connection, and Node parses what it reads of a connection whole (64 KiB and
 * more: hundreds of small pipelined requests) before it stops reading: eight connections
 * pipelining without reading held thousands of refused requests and their answers, and the heap
 * ran out within a second. Past this many, a connection that would add one more is closed
 * instead (the rest of what was read of it is dropped unanswered: ExpressAdapterWithDeadlines).
 */
export const MAX_REFUSALS_WAITING = 1024;
let refusalsWaiting = 0;

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
      if (refusalsWaiting >= MAX_REFUSALS_WAITING) {
        this.metrics.shed.inc({ reason: 'connection-closed' });
        socket.destroy();
        return;
      }
      refusalsWaiting++;
      res.once('close', () => refusalsWaiting--);
      this.metrics.shed.inc({ reason: 'connection' });
      res.setHeader('Retry-After', '1');
      throw new ApiError(ErrorCatalogue.TOO_MANY_REQUESTS, 'too many requests in progress on this connection');
    }
    answers.add(res);
    res.once('close', () => answers.delete(res));
    next();
  }
}
