import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import onHeaders from 'on-headers';
import { edgeConfig, type EdgeConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';
import { ByteBudget } from '../common/byte-budget';
import { clientOf } from '../common/client-address';
import { ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { readsBody } from './body-budget.middleware';
import { shedRequest } from './shed';

// Probes must be answered however busy the instance is.
const NEVER_SHED = /^\/health(\/|$)/;

/** An address may always have this much unread (a back-office page and change). */
const UNREAD_SHARE_AT_LEAST = 512 * 1024;

// Past MAX_REQUESTS_IN_FLIGHT, 5031 at once, before any database or Redis work, rather than a queue that grows until
// the heap runs out. Answers clients have not read stay in this process, so their bytes count too, against
// MAX_UNREAD_ANSWER_BYTES with a share per client address (ByteBudget: 4290 past it).
@Injectable()
export class LoadSheddingMiddleware implements NestMiddleware {
  private readonly limit: number;
  private inFlight = 0;
  // Woken long polls wait here for a place rather than being refused: they are held already (CHANGES_WAITS_MAX bounds
  // them), and they take at most half the places, so that a storm of them leaves the rest to other requests.
  private readonly wokenWaiting: (() => void)[] = [];
  private wokenWorking = 0;
  private readonly unread: ByteBudget;

  constructor(
    @Inject(edgeConfig.KEY) config: EdgeConfig,
    private readonly metrics: MetricsService,
  ) {
    this.limit = config.maxRequestsInFlight;
    this.unread = new ByteBudget(config.maxUnreadAnswerBytes, UNREAD_SHARE_AT_LEAST);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if (NEVER_SHED.test(req.path)) return next();
    const client = clientOf(req);
    const refusal = this.unread.refusal(client, 0);
    if (refusal === 'client') {
      throw shedRequest(this.metrics, 'client-answers', ErrorCatalogue.TOO_MANY_REQUESTS, 'too many answers waiting to be read by this address');
    }
    if (refusal === 'process') throw shedRequest(this.metrics, 'answers', ErrorCatalogue.SERVER_BUSY, 'too many answers waiting to be read');
    // A request with a body takes its place once the body is read (JsonBodyInterceptor).
    let state: 'waiting' | 'working' | 'idle' | 'written' | 'closed' = 'waiting';
    let unreadBytes = 0;
    let woken = false;
    let dequeue: (() => void) | undefined;
    (req as ServiceRequest).context.place = {
      take: () => {
        if (state !== 'waiting') return;
        this.take(res);
        state = 'working';
      },
      leave: () => {
        if (state !== 'working') return;
        this.leave(woken);
        state = 'idle';
      },
      resume: () =>
        new Promise<void>((resolve) => {
          if (state !== 'idle') return resolve();
          const turn = () => {
            dequeue = undefined;
            if (state === 'idle') {
              this.enter();
              this.wokenWorking++;
              woken = true;
              state = 'working';
            }
            resolve();
          };
          this.wokenWaiting.push(turn);
          dequeue = () => {
            this.wokenWaiting.splice(this.wokenWaiting.indexOf(turn), 1);
            resolve();
          };
          this.admitWoken();
        }),
    };
    if (!readsBody(req)) {
      this.take(res);
      state = 'working';
    }
    // Written (the head goes with the body: every answer is sent whole): the place is given back,
    // and the answer's bytes count as unread until its connection has taken them.
    onHeaders(res, () => {
      if (state === 'written' || state === 'closed') return;
      if (state === 'working') this.leave(woken);
      state = 'written';
      unreadBytes = Number(res.getHeader('content-length')) || 0;
      if (unreadBytes > 0) this.unread.hold(client, unreadBytes);
      this.metrics.unreadAnswerBytes.set(this.unread.held);
    });
    // Taken by the connection (the response's 'close' follows its 'finish'), or never to be: it
    // also comes when the connection closes, before its turn included (a pipelined request
    // without a socket, which on-finished would wait on for good).
    res.once('close', () => {
      dequeue?.();
      if (state === 'working') this.leave(woken);
      else if (state === 'written' && unreadBytes > 0) {
        this.unread.give(client, unreadBytes);
        this.metrics.unreadAnswerBytes.set(this.unread.held);
      }
      state = 'closed';
    });
    next();
  }

  private enter(): void {
    this.inFlight++;
    this.metrics.inFlight.inc();
  }

  private leave(woken: boolean): void {
    this.inFlight--;
    this.metrics.inFlight.dec();
    if (woken) this.wokenWorking--;
    this.admitWoken();
  }

  /** A place among the requests in progress, or the refusal to throw. */
  private take(res: Response): void {
    if (this.inFlight >= this.limit) throw shedRequest(this.metrics, 'process', ErrorCatalogue.SERVER_BUSY);
    this.enter();
  }

  /** Woken long polls in turn, while one place is free and they hold under half of them. */
  private admitWoken(): void {
    while (this.wokenWaiting.length > 0 && this.inFlight < this.limit && this.wokenWorking < this.limit / 2) this.wokenWaiting.shift()!();
  }
}
