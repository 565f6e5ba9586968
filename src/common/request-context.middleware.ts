import { Injectable, NestMiddleware } from '@nestjs/common';
import { json } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { RequestContext, ServiceRequest } from './request-context';

export const BODY_LIMIT_BYTES = 64 * 1024;

// A caller's id is echoed only when it is short and plain, so it cannot forge log lines.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Every body is read as JSON whatever its Content-Type: this is a JSON-only API, and a
// mislabelled body is better reported as malformed JSON than silently ignored.
const parseJson = json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true });

/**
 * The request's context, created on first use: the request id (the caller's if sane, else a
 * new UUID) is set on the response at once. The HTTP logger and this middleware both call it,
 * whichever runs first.
 */
export function ensureRequestContext(req: Request, res: Response): RequestContext {
  const existing = (req as Partial<ServiceRequest>).context;
  if (existing) return existing;
  const incoming = req.header('x-request-id');
  const requestId = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const context: RequestContext = { requestId };
  (req as ServiceRequest).context = context;
  res.setHeader('x-request-id', requestId);
  return context;
}

/** Assigns the request id and parses the body, holding back parse failures for later. */
@Injectable()
export class RequestContextMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    ensureRequestContext(req, res);
    parseJson(req, res, (error?: unknown) => {
      if (error) (req as ServiceRequest).context.bodyError = error;
      next();
    });
  }
}
