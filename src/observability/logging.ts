import { ConfigService } from '@nestjs/config';
import type { Params } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino from 'pino';
import type { Request, Response } from 'express';
import { ensureRequestContext } from '../common/request-context.middleware';
import type { Environment } from '../config/environment';
import { codeOf, routeOf } from './request-metrics.middleware';

/**
 * Where the lines go: stdout, written synchronously, line by line. pino's default stdout
 * destination is asynchronous: it queues lines in memory and writes at most 16 KiB per event
 * loop turn, so under sustained load (a partner polling at 15k req/s) the queue grows without
 * bound, the process runs out of heap within a minute, and until then the queue's string
 * building drives the GC (docs/benchmarks.md). A synchronous write costs about the same CPU
 * and bounds memory; a slow reader of stdout slows the service rather than killing it.
 */
export function logDestination(fd = 1): pino.DestinationStream {
  return pino.destination({ dest: fd, sync: true });
}

/** What a request's line says besides the request and the answer: id, route, envelope code, caller. */
function outcome(req: IncomingMessage, res: ServerResponse, value: object): object {
  const context = ensureRequestContext(req as Request, res as Response);
  return {
    reqId: context.requestId,
    route: routeOf(req as Request),
    code: Number(codeOf(res as Response)),
    partner: context.partner?.source,
    actor: context.actor?.name,
    ...value,
  };
}

/**
 * One JSON line per request (pino-http through nestjs-pino), written when it is answered:
 * request id, route, envelope code, duration, and who called (partner source or admin actor).
 * Request headers are never serialized; credentials are redacted should they ever be.
 */
export function loggingOptions(config: ConfigService<Environment, true>): Params {
  return {
    // Express's cheap match for every path (the default pattern is a regular expression run per
    // request; a route object { path: '/' } would be that exact path only).
    forRoutes: ['/'],
    pinoHttp: [
      {
        level: config.get('LOG_LEVEL', { infer: true }),
        genReqId: (req: IncomingMessage, res: ServerResponse) => ensureRequestContext(req as Request, res as Response).requestId,
        redact: {
          paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
          censor: '[redacted]',
        },
        // Only what the line needs, read straight from the request (pino's standard serializer
        // would copy the headers and parse the query string of every request first).
        wrapSerializers: false,
        serializers: {
          req: (req: Request) => ({ id: req.id, method: req.method, url: req.originalUrl ?? req.url, remoteAddress: req.socket?.remoteAddress }),
          res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
        },
        customSuccessObject: outcome,
        customErrorObject: (req: IncomingMessage, res: ServerResponse, _error: Error, value: object) => outcome(req, res, value),
        customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
          error || Number(codeOf(res as Response)) >= 5000 ? 'error' : 'info',
        customSuccessMessage: (req: IncomingMessage) => `${req.method} ${req.url} completed`,
        customErrorMessage: (req: IncomingMessage) => `${req.method} ${req.url} failed`,
      },
      logDestination(),
    ],
  };
}
