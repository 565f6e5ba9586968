import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface.js';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { PinoLogger } from 'nestjs-pino';

/**
 * A route answered on the HTTP server's `request` event, ahead of Express and Nest, for the
 * requests it can answer exactly as the pipeline would (src/markets/public-read-fast-path.ts,
 * src/disputes/dispute-fast-path.ts). `take` returns false at once, having done nothing, for a
 * request it does not take; `pipeline` gets the requests it took but then leaves to Express.
 */
export interface FastPath {
  take(req: IncomingMessage, res: ServerResponse, pipeline: RequestListener): boolean;
}

/** pino-http's logger, which writes the request log lines. */
export type RequestLog = NonNullable<typeof PinoLogger.root>;

export function requestLog(): RequestLog {
  if (!PinoLogger.root) throw new Error('the request logger (nestjs-pino) is not set up yet');
  return PinoLogger.root;
}

/** What the ThrottlerGuard reports in X-RateLimit-* for a counted request. */
export interface RateLimitState {
  limit: number;
  record: Pick<ThrottlerStorageRecord, 'totalHits' | 'timeToExpire'>;
}

/**
 * Sends an envelope (`body`, JSON) with the pipeline's headers in the pipeline's order:
 * helmet's (`securityHeaders`), the request id, the ThrottlerGuard's (once it has counted the
 * request), then Express's.
 */
export function sendEnvelope(
  res: ServerResponse,
  securityHeaders: readonly string[],
  requestId: string,
  rate: RateLimitState | undefined,
  body: string,
): void {
  const rateLimit = rate
    ? [
        'X-RateLimit-Limit', String(rate.limit),
        'X-RateLimit-Remaining', String(Math.max(0, rate.limit - rate.record.totalHits)),
        'X-RateLimit-Reset', String(rate.record.timeToExpire),
      ]
    : [];
  res.writeHead(200, [
    ...securityHeaders,
    'x-request-id', requestId,
    ...rateLimit,
    'Content-Type', 'application/json; charset=utf-8',
    'Content-Length', String(Buffer.byteLength(body)),
  ]);
  res.end(body);
}

/**
 * pino-http's line for a request (src/observability/logging.ts), field for field: for an
 * answered one, its route, envelope code (the level follows it) and partner if any; for one
 * whose client left before its answer, as pino-http writes it when the connection closes:
 * no route or code, no status.
 */
export function logRequest(
  log: RequestLog,
  req: IncomingMessage,
  { requestId, seconds, answered }: { requestId: string; seconds: number; answered?: { route: string; code: number; partner?: string } },
): void {
  const line = {
    reqId: requestId,
    req: { id: requestId, method: req.method, url: req.url, socket: req.socket },
    ...answered,
    res: { statusCode: 200, headersSent: answered !== undefined },
    responseTime: Math.round(seconds * 1000),
  };
  const message = `${req.method} ${req.url} completed`;
  if (answered && answered.code >= 5000) log.error(line, message);
  else log.info(line, message);
}

/** A request a fast path has taken, as far as its client's leaving is concerned. */
export interface TakenRequest {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  /** When it arrived (process.hrtime.bigint(): the log line's responseTime, as pino-http's). */
  started: bigint;
  /** Given to the pipeline, which logs and answers it from then on. */
  handedOver: boolean;
  /** Its client left before the answer: logged then, as pino-http does; no answer, no metric. */
  gone: boolean;
}

/**
 * Watches for the client of `taken` leaving before its answer (its connection closes first):
 * marks it gone and writes pino-http's line for it, unless the pipeline has it by then.
 */
export function watchClientLeaving(taken: TakenRequest, log: RequestLog): void {
  taken.res.once('close', () => {
    if (taken.handedOver || taken.res.writableEnded) return; // answered: its line is (being) written
    taken.gone = true;
    logRequest(log, taken.req, { requestId: taken.requestId, seconds: secondsSince(taken.started) });
  });
}

/**
 * A failure that is a bug, logged as the exception filter's Logger('Errors') logs it inside a
 * request (with the request's `reqId` binding, the context, the request id and route, the
 * error), so that a search by request id finds it.
 */
export function logUnexpectedError(log: RequestLog, error: unknown, { requestId, route }: { requestId?: string; route: string }): void {
  const logger = requestId === undefined ? log : log.child({ reqId: requestId });
  logger.error({ context: 'Errors', requestId, route, err: error }, error instanceof Error ? error.stack : String(error));
}

/** Seconds since `started` (process.hrtime.bigint()). */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Puts the fast paths in front of the application on its HTTP server: every request reaches
 * them first, in order, and whatever none takes goes on to Express as before. A fast path
 * that throws while deciding (a bug: `take` does nothing irreversible before it returns) is
 * logged and the request goes to the pipeline, rather than taking the process down.
 */
export function installFastPaths(app: NestExpressApplication, fastPaths: FastPath[], log: RequestLog): void {
  const server = app.getHttpServer() as Server;
  const [pipeline, ...others] = server.listeners('request') as RequestListener[];
  if (!pipeline || others.length > 0) throw new Error('expected one request listener (Express) on the HTTP server');
  server.removeListener('request', pipeline);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    try {
      for (const fastPath of fastPaths) if (fastPath.take(req, res, pipeline)) return;
    } catch (error) {
      logUnexpectedError(log, error, { route: req.url ?? '' });
    }
    pipeline(req, res);
  });
}
