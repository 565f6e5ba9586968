import { Injectable, NestMiddleware } from '@nestjs/common';
import { json } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { ensureRequestContext } from './request-context.middleware';

export const BODY_LIMIT_BYTES = 64 * 1024;

// Every body is read as JSON whatever its Content-Type: this is a JSON-only API, and a
// mislabelled body is better reported as malformed JSON than silently ignored.
const parseJson = json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true });

/**
 * Reads the body (64 KiB at most). A failure is held back, not answered: the envelope
 * interceptor raises it after the guards, so that credentials are checked before the body. A
 * body refused for its size is read off to its end first (body-parser), so that the client
 * reads the answer rather than a reset; the request's deadline bounds that wait.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    parseJson(req, res, (error?: unknown) => {
      // Answered while its body was read (it did not arrive in time), or its client has gone:
      // nothing is left to do.
      if (res.headersSent || req.socket.destroyed) return;
      if (error) ensureRequestContext(req, res).bodyError = error;
      next();
    });
  }
}
