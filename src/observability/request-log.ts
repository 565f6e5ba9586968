import type { Request, Response } from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { LevelWithSilent } from 'pino';
import type { Options } from 'pino-http';
import { clientOf } from '../common/client-address';
import { ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import type { LogRedaction } from './log-redaction';

/** "unmatched" for unknown paths (Nest's catch-all `{/*splat}` route): they must not explode the label set. */
export function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && !path.includes('*') ? `${req.baseUrl}${path}` : 'unmatched';
}

/** The code of a request whose client left before anything was answered (nginx's "client closed request"). */
export const CLIENT_CLOSED = 499;

/** The envelope code of a response, its HTTP status outside the envelope, or CLIENT_CLOSED. */
export function codeOf(res: Response): number {
  return Number(res.locals.envelopeCode ?? (res.headersSent ? res.statusCode : CLIENT_CLOSED));
}

/** Health probes: their successful answers are logged at `debug`. */
const PROBES = /^\/health\//;

/** Lines of 5000 and 5030 at `error`, of 5031 (shed: nothing failed) at `warn`, of a probe answered 200 at `debug`. */
function levelOf(req: Request, res: Response): LevelWithSilent {
  const code = codeOf(res);
  if (code === ErrorCatalogue.SERVER_BUSY.code) return 'warn';
  if (code >= 5000) return 'error';
  return code === 200 && PROBES.test(req.path) ? 'debug' : 'info';
}

/**
 * nestjs-pino's pino-http options for the one JSON line of every request, once answered or abandoned; headers are never
 * logged. Its id and URL are redacted once (a caller may send a key as its request id; one made here is a UUID).
 */
export function requestLogOptions(redaction: LogRedaction): Options<Request, Response> {
  const urlOf = (req: Request): string => (req.res!.locals.loggedUrl ??= redaction.url(req.originalUrl));
  const line = (req: Request, res: Response, { responseTime }: { responseTime: number }) => {
    const context = (req as ServiceRequest).context;
    return {
      reqId: req.id as string,
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
  const message = (req: Request, res: Response) => `${req.method} ${urlOf(req)} ${res.writableFinished ? 'completed' : 'closed before its answer was sent'}`;
  return {
    genReqId: (req) => {
      const requestId = (req as ServiceRequest).context.requestId;
      return requestId === req.headers['x-request-id'] ? redaction.text(requestId) : requestId;
    },
    // On the root logger: a line that brings its own `req` and `res` (ProtocolErrors' unparsed line) keeps them.
    serializers: {
      req: (req: Request | object) =>
        req instanceof IncomingMessage ? { id: req.id, method: req.method, url: urlOf(req as Request), remoteAddress: req.socket.remoteAddress } : req,
      res: (res: Response | object) => (!(res instanceof ServerResponse) ? res : res.headersSent ? { statusCode: res.statusCode } : undefined),
    },
    customLogLevel: levelOf,
    customSuccessMessage: message,
    customErrorMessage: message,
    customSuccessObject: line,
    // A raw answer's 5xx (a probe's 503) is no error of the request: the same line.
    customErrorObject: (req, res, _error, values) => line(req, res, values),
  };
}
