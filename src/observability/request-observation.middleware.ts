import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import type { LevelWithSilent } from 'pino';
import { type HttpLogger, pinoHttp } from 'pino-http';
import { clientOf } from '../common/client-address';
import { ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { LogRedaction } from './log-redaction';
import { MetricsService } from './metrics.service';

/** "unmatched" for unknown paths (Nest's catch-all `{/*splat}` route): they must not explode the label set. */
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

/** Lines of 5000 and 5030 at `error`, of 5031 (shed: nothing failed) at `warn`, of a probe answered 200 at `debug`. */
function levelOf(req: Request, res: Response): LevelWithSilent {
  const code = codeOf(res);
  if (code === ErrorCatalogue.SERVER_BUSY.code) return 'warn';
  if (code >= 5000) return 'error';
  return code === 200 && PROBES.test(req.path) ? 'debug' : 'info';
}

/** Every request, once answered or abandoned, is counted, timed and logged as one JSON line; headers are never logged. */
@Injectable()
export class RequestObservationMiddleware implements NestMiddleware {
  private readonly log: HttpLogger<Request, Response>;

  constructor(
    logger: PinoLogger,
    private readonly metrics: MetricsService,
    private readonly redaction: LogRedaction,
  ) {
    const line = (req: Request, res: Response, { responseTime }: { responseTime: number }) => {
      const context = (req as ServiceRequest).context;
      return {
        reqId: res.locals.loggedRequestId as string,
        client: clientOf(req),
        route: routeOf(req),
        code: codeOf(res),
        partner: context.partner?.source,
        actor: context.actor?.name,
        res,
        responseTime,
        failure: res.locals.failure as string | undefined,
      };
    };
    const message = (req: Request, res: Response) =>
      `${req.method} ${res.locals.loggedUrl} ${res.writableFinished ? 'completed' : 'closed before its answer was sent'}`;
    this.log = pinoHttp<Request, Response>({
      logger: logger.logger,
      genReqId: (req) => (req as ServiceRequest).context.requestId,
      wrapSerializers: false,
      serializers: {
        req: (req: Request) => ({ id: req.res!.locals.loggedRequestId as string, method: req.method, url: req.res!.locals.loggedUrl, remoteAddress: req.socket.remoteAddress }),
        res: (res: Response) => (res.headersSent ? { statusCode: res.statusCode } : undefined),
      },
      customLogLevel: levelOf,
      customSuccessMessage: message,
      customErrorMessage: message,
      customSuccessObject: line,
      // A raw answer's 5xx (a probe's 503) is no error of the request: the same line.
      customErrorObject: (req, res, _error, values) => line(req, res, values),
    });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const started = performance.now();
    // Read now: the peer address is gone once the socket is closed.
    clientOf(req);
    // Redacted once, for the line's `req` and its message; a caller may send a key as its request id (one made here is a UUID).
    res.locals.loggedUrl = this.redaction.url(req.originalUrl);
    const requestId = (req as ServiceRequest).context.requestId;
    res.locals.loggedRequestId = requestId === req.headers['x-request-id'] ? this.redaction.text(requestId) : requestId;
    res.once('close', () => this.metrics.observeRequest(req.method, routeOf(req), codeOf(res), (performance.now() - started) / 1000));
    this.log(req, res, next);
  }
}
