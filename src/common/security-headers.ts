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

/** The admin API (any letter case: Express routes it so): its answers carry new keys and submitters' identities. */
const ADMIN_API = /^\/admin(?:\/|$)/i;

/**
 * helmet's security headers on every answer but the docs UI's; the admin API's answers are not
 * to be stored by any cache (`Cache-Control: no-store`).
 */
@Injectable()
export class SecurityHeadersMiddleware implements NestMiddleware {
  private readonly headers = new Map(Object.entries(helmetHeaders()).map(([name, value]) => [name, value!]));

  use(req: Request, res: Response, next: NextFunction): void {
    if (!OWN_HEADERS.test(req.path)) res.setHeaders(this.headers);
    if (ADMIN_API.test(req.path)) res.setHeader('Cache-Control', 'no-store');
    next();
  }
}
