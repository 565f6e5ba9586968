import { Inject, Injectable, NestMiddleware, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import type { Socket } from 'node:net';
import { edgeConfig, type EdgeConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';
import { ErrorCatalogue } from '../common/error-catalogue';
import { ExpressAdapterWithDeadlines } from './http-server';
import { shedRequest } from './shed';

/** Dropped requests a refused connection may send before it is closed without its answers. */
const DROPS_BEFORE_CLOSING = 64;

// Process-wide: Node keeps a dropped request until its connection closes, and thousands of connections each
// sending their 64 would outgrow the heap. Past this many, a refused connection that sends another closes at once.
const MAX_DROPS_HELD = 1024;

// Past MAX_REQUESTS_PER_CONNECTION: 4290, Connection: close, and no work or answer for what was pipelined behind (clients
// resend it). Node parses a whole 64 KiB read in one turn, so the server asks `admits` before Express to drop what was
// read behind the refusal. Below DB_POOL_SIZE (validateEnvironment): one connection never holds the whole pool.
@Injectable()
export class ConnectionLimits implements OnApplicationBootstrap {
  private readonly limit: number;
  /** The answers in progress on each connection, oldest first. */
  private readonly inProgress = new WeakMap<Socket, Set<Response>>();
  /** Connections whose last request was answered before its body had all arrived. */
  private readonly answeredEarly = new WeakSet<Socket>();
  /** Connections refused past their limit, how many of their requests were dropped since, and whether their destroy is scheduled. */
  private readonly refused = new WeakMap<Socket, { dropped: number; destroying: boolean }>();
  private dropsHeld = 0;
  /** The connections with answers in progress (their sets in `inProgress`), for the shutdown. */
  private readonly busy = new Set<Set<Response>>();
  /** Answers the shutdown gave Connection: close, as the newest owed on their connection. */
  private readonly closing = new WeakSet<Response>();
  private draining = false;

  constructor(
    @Inject(edgeConfig.KEY) config: EdgeConfig,
    private readonly metrics: MetricsService,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.limit = config.maxRequestsPerConnection;
  }

  onApplicationBootstrap(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter instanceof ExpressAdapterWithDeadlines) {
      adapter.admitRequestsBy((socket) => this.admits(socket));
      adapter.closeBusyConnectionsBy(() => this.closeAfterTheirAnswers());
    }
  }

  // Each busy connection closes after its newest answer (Node writes a connection's answers in order); a request
  // taken in on it later moves the close to its own answer.
  closeAfterTheirAnswers(): void {
    this.draining = true;
    for (const answers of this.busy) {
      const newest = [...answers].at(-1)!;
      if (newest.headersSent) continue;
      newest.setHeader('Connection', 'close');
      this.closing.add(newest);
    }
  }

  // Answered before its body had all arrived (refused by a guard, or a body not read): what the parser then finds
  // wrong with that body concerns a request that has its answer (ProtocolErrors).
  answeredBeforeItsBody(socket: Socket): boolean {
    return this.answeredEarly.has(socket);
  }

  /** The answers still owed on `socket`, oldest first (ProtocolErrors reads them). */
  answersOwedOn(socket: Socket): Response[] {
    return [...(this.inProgress.get(socket) ?? [])];
  }

  /** Whether a request Node parsed of `socket` reaches the application. */
  admits(socket: Socket): boolean {
    if (socket.destroyed) return false;
    const refusal = this.refused.get(socket);
    if (!refusal) return true;
    if (refusal.destroying) return false;
    if (refusal.dropped >= DROPS_BEFORE_CLOSING || this.dropsHeld >= MAX_DROPS_HELD) {
      this.metrics.shed.inc({ reason: 'connection-closed' });
      // At once: libuv goes on reading a connection as long as Node resumes it (once the answers
      // before the refusal are written), so one scheduled for later was read to its end first.
      refusal.destroying = true;
      socket.destroy();
      return false;
    }
    if (refusal.dropped++ === 0) socket.once('close', () => (this.dropsHeld -= refusal.dropped));
    this.dropsHeld++;
    return false;
  }

  /** Takes `res` in on its connection, or refuses it (throws 4290) past the limit. */
  takeIn(req: Request, res: Response): void {
    const socket = req.socket;
    let answers = this.inProgress.get(socket);
    if (!answers) this.inProgress.set(socket, (answers = new Set()));
    if (answers.size >= this.limit) {
      this.refused.set(socket, { dropped: 0, destroying: false });
      socket.pause();
      res.setHeader('Connection', 'close');
      throw shedRequest(this.metrics, 'connection', ErrorCatalogue.TOO_MANY_REQUESTS, 'too many requests in progress on this connection');
    }
    if (this.draining) this.keepOpenFor(answers);
    answers.add(res);
    this.busy.add(answers);
    this.answeredEarly.delete(socket);
    // 'close', not on-finished: it also comes to an answer still queued when its connection closes.
    res.once('close', () => {
      answers.delete(res);
      if (answers.size === 0) this.busy.delete(answers);
      if (!req.complete) this.answeredEarly.add(socket);
    });
  }

  /** The close the shutdown gave an answer still owed, moved off it: a newer request follows on its connection. */
  private keepOpenFor(answers: Set<Response>): void {
    for (const owed of answers) {
      if (this.closing.delete(owed) && !owed.headersSent) owed.removeHeader('Connection');
    }
  }
}

@Injectable()
export class ConnectionLimitMiddleware implements NestMiddleware {
  constructor(private readonly limits: ConnectionLimits) {}

  use(req: Request, res: Response, next: NextFunction): void {
    this.limits.takeIn(req, res);
    next();
  }
}
