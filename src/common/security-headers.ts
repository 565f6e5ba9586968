import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

/**
 * The headers helmet's strict defaults set on a response, worked out once by running helmet
 * on a real (unsent) response: none depends on the request (no CSP nonce), so fifteen
 * middlewares per request become one assignment of the same list.
 */
function helmetHeaders(): OutgoingHttpHeaders {
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  let done = false;
  helmet()(response.req, response, () => (done = true));
  if (!done) throw new Error('helmet did not set its headers synchronously');
  return response.getHeaders();
}

/** Paths whose pages bring their own headers: the API docs UI needs its own scripts and styles. */
const OWN_HEADERS = /^\/docs(?:[/?-]|$)/;

/** helmet's security headers on every answer but the docs UI's. */
@Injectable()
export class SecurityHeadersMiddleware implements NestMiddleware {
  private readonly headers = new Map(Object.entries(helmetHeaders()).map(([name, value]) => [name, value!]));

  use(req: Request, res: Response, next: NextFunction): void {
    if (!OWN_HEADERS.test(req.path)) res.setHeaders(this.headers);
    next();
  }
}
