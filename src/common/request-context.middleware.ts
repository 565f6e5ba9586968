import { Injectable, NestMiddleware } from '@nestjs/common';
import { json } from 'express';
import type { NextFunction, Request, Response } from 'express';
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

/** Assigns the request id and parses the body, holding back parse failures for later. */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    const context = ensureRequestContext(req, res);
    parseJson(req, res, (error?: unknown) => {
      if (error) context.bodyError = heldBodyError(error);
      next();
    });
  }
}
