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

/**
 * One JSON line per request (pino-http through nestjs-pino): request id, route, envelope
 * code, duration, and who called (partner source or admin actor). Credentials are redacted.
 */
export function loggingOptions(config: ConfigService<Environment, true>): Params {
  return {
    pinoHttp: [
      {
        level: config.get('LOG_LEVEL', { infer: true }),
        genReqId: (req: IncomingMessage, res: ServerResponse) =>
          ensureRequestContext(req as Request, res as Response).requestId,
        redact: {
          paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie'],
          censor: '[redacted]',
        },
        quietReqLogger: true,
        serializers: {
          req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
            id: req.id,
            method: req.method,
            url: req.url,
            remoteAddress: req.remoteAddress,
          }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        },
        customProps: (req: IncomingMessage, res: ServerResponse) => {
          // Called when the request starts and when it ends; only the end knows route and code.
          if (!res.writableFinished) return {};
          const context = ensureRequestContext(req as Request, res as Response);
          return {
            route: routeOf(req as Request),
            code: Number(codeOf(res as Response)),
            partner: context.partner?.source,
            actor: context.actor?.name,
          };
        },
        customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error) =>
          error || Number(codeOf(res as Response)) >= 5000 ? 'error' : 'info',
        customSuccessMessage: (req: IncomingMessage) => `${req.method} ${req.url} completed`,
        customErrorMessage: (req: IncomingMessage) => `${req.method} ${req.url} failed`,
      },
      logDestination(),
    ],
  };
}
