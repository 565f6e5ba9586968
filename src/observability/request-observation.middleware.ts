import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { clientOf } from '../common/client-address';
import { ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { LogRedaction } from './log-redaction';
import { MetricsService } from './metrics.service';

/**
 * The route template a request matched, or "unmatched" (unknown paths must not explode the
 * label set; Nest answers them from a catch-all `{/*splat}` route).
 */
export function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && !path.includes('*') ? `${req.baseUrl}${path}` : 'unmatched';
}

/** Health probes: their successful answers are logged at `debug`. */
const PROBES = /^\/health\//;

/** The code of a request whose client left before anything was answered (nginx's "client closed request"). */
export const CLIENT_CLOSED = 499;

/** The envelope code of a response, its HTTP status outside the envelope, or CLIENT_CLOSED. */
export function codeOf(res: Response): number {
  return Number(res.locals.envelopeCode ?? (res.headersSent ? res.statusCode : CLIENT_CLOSED));
}

/**
 * Every request, once it is answered (or its client leaves first), is counted and timed in the
 * metrics, by method, route and envelope code, and written as one JSON log line: the request id
 * (= x-request-id), method, URL, the connection's peer address and the client's (as TRUST_PROXY
 * reads it: what the limits count against), route, code (499 when the client left before any
 * answer), who called (partner source or admin actor), HTTP status (none when nothing was
 * sent) and duration, and for a 5030 or a 5031 of the database's pool, what the database or the
 * driver said (`failure`). Request headers are never logged, and the URL is redacted and cut
 * (LogRedaction). Lines of 5000 and 5030 are at `error`, of 5031 at `warn`, of a probe answered
 * 200 at `debug`, the rest at `info`. (pino-http, which nestjs-pino would mount,
 * made two child loggers and a logging context for every request: about a fifth of a cached
 * read's cost.)
 */
@Injectable()
export class RequestObservationMiddleware implements NestMiddleware {
  constructor(
    private readonly logger: PinoLogger,
    private readonly metrics: MetricsService,
    private readonly redaction: LogRedaction,
  ) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const started = performance.now();
    const remoteAddress = req.socket.remoteAddress; // gone once the socket is closed
    const client = clientOf(req); // read now for the same reason, and kept in the context for the limits
    res.once('close', () => {
      const elapsedMs = performance.now() - started;
      const route = routeOf(req);
      const code = codeOf(res);
      this.metrics.observeRequest(req.method, route, code, elapsedMs / 1000);
      const context = (req as Partial<ServiceRequest>).context;
      const url = this.redaction.url(req.originalUrl);
      const line = {
        reqId: context?.requestId,
        req: { id: context?.requestId, method: req.method, url, remoteAddress },
        client,
        route,
        code,
        partner: context?.partner?.source,
        actor: context?.actor?.name,
        res: res.headersSent ? { statusCode: res.statusCode } : undefined,
        responseTime: Math.round(elapsedMs),
        failure: res.locals.failure as string | undefined,
      };
      const message = `${req.method} ${url} ${res.writableFinished ? 'completed' : 'closed before its answer was sent'}`;
      if (code === ErrorCatalogue.SERVER_BUSY.code) this.logger.logger.warn(line, message); // shed: the instance is busy, nothing failed
      else if (code >= 5000) this.logger.logger.error(line, message);
      else if (code === 200 && PROBES.test(req.path)) this.logger.logger.debug(line, message); // a probe every few seconds tells nothing
      else this.logger.logger.info(line, message);
    });
    next();
  }
}
