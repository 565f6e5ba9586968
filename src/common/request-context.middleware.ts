import { Injectable, NestMiddleware } from '@nestjs/common';
import { json } from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { ApiError, ErrorCatalogue } from './error-catalogue';
import type { RequestContext, ServiceRequest } from './request-context';

export const BODY_LIMIT_BYTES = 64 * 1024;

// A caller's id is echoed only when it is short and plain, so it cannot forge log lines.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Every body is read as JSON whatever its Content-Type: this is a JSON-only API, and a
// mislabelled body is better reported as malformed JSON than silently ignored.
export const parseJson = json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true });

/**
 * The request's context, created on first use: the request id (the caller's if sane, else a
 * new UUID) is set on the response at once. The HTTP logger and this middleware both call it,
 * whichever runs first.
 */
export function ensureRequestContext(req: Request, res: Response): RequestContext {
  const existing = (req as Partial<ServiceRequest>).context;
  if (existing) return existing;
  const context: RequestContext = { requestId: requestIdOf(req.headers['x-request-id']) };
  (req as ServiceRequest).context = context;
  res.setHeader('x-request-id', context.requestId);
  return context;
}

/** The caller's `x-request-id` when it is sane, else a new UUID. */
export function requestIdOf(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

// The body-parser failures toApiError maps by their `type`.
const MAPPED_BODY_ERRORS = new Set(['entity.parse.failed', 'entity.too.large', 'encoding.unsupported', 'charset.unsupported']);

/**
 * Any other failure the parser blames on the request (status 4xx: a gzip, deflate or br body
 * that does not decompress, a body shorter than its Content-Length) leaves no JSON to read:
 * 4001, not an unexpected error (5000).
 */
function heldBodyError(error: unknown): unknown {
  const { type, status } = (typeof error === 'object' && error !== null ? error : {}) as { type?: unknown; status?: unknown };
  if (typeof type === 'string' && MAPPED_BODY_ERRORS.has(type)) return error;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(ErrorCatalogue.MALFORMED_JSON, 'the body could not be decoded');
  }
  return error;
}

/** A body read ahead of the pipeline: what parsing it gave, or the failure reading it. */
export type ReadBody = { value: unknown } | { error: unknown };

const bodiesReadAhead = new WeakMap<IncomingMessage, ReadBody>();

/**
 * Hands the pipeline a request whose body a fast path has already consumed (the stream has
 * ended): the middleware takes the outcome from here instead of reading the stream.
 */
export function handOverReadBody(req: IncomingMessage, body: ReadBody): void {
  bodiesReadAhead.set(req, body);
}

/**
 * What `parseJson` makes of a complete body (body-parser's json with `strict: false`, UTF-8):
 * a leading BOM dropped, an empty body read as `{}`, else JSON.parse; a syntax error is the
 * parser's `entity.parse.failed` (4001).
 */
export function parseJsonBody(raw: Buffer): ReadBody {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return { value: {} };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: Object.assign(error as Error, { type: 'entity.parse.failed', status: 400, statusCode: 400, expose: true }) };
  }
}

/** Assigns the request id and parses the body, holding back parse failures for later. */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    const context = ensureRequestContext(req, res);
    const readAhead = bodiesReadAhead.get(req);
    if (readAhead) {
      bodiesReadAhead.delete(req);
      if ('error' in readAhead) context.bodyError = heldBodyError(readAhead.error);
      else req.body = readAhead.value;
      return next();
    }
    parseJson(req, res, (error?: unknown) => {
      if (error) context.bodyError = heldBodyError(error);
      next();
    });
  }
}
