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
function helmetHeaders(options?: Parameters<typeof helmet>[0]): OutgoingHttpHeaders {
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  let done = false;
  helmet(options)(response.req, response, () => (done = true));
  if (!done) throw new Error('helmet did not set its headers synchronously');
  return response.getHeaders();
}

/** The API docs and their UI, which runs Swagger UI's scripts from here and styles inline. */
const DOCS = /^\/docs(?:[/?-]|$)/;

/** The docs UI's policy: nothing from elsewhere, inline styles only, never framed (like the back office's). */
const DOCS_CSP = {
  directives: {
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
  },
};

/** The admin API (any letter case: Express routes it so): its answers carry new keys and submitters' identities. */
const ADMIN_API = /^\/admin(?:\/|$)/i;

const headerMap = (headers: OutgoingHttpHeaders) => new Map(Object.entries(headers).map(([name, value]) => [name, value!]));

/**
 * helmet's security headers on every answer, the docs' with a policy of their own (and
 * X-Frame-Options: DENY); the admin API's answers are not to be stored by any cache
 * (`Cache-Control: no-store`).
 */
@Injectable()
export class SecurityHeadersMiddleware implements NestMiddleware {
  private readonly headers = headerMap(helmetHeaders());
  private readonly docsHeaders = headerMap(helmetHeaders({ contentSecurityPolicy: DOCS_CSP, frameguard: { action: 'deny' } }));

  use(req: Request, res: Response, next: NextFunction): void {
    res.setHeaders(DOCS.test(req.path) ? this.docsHeaders : this.headers);
    if (ADMIN_API.test(req.path)) res.setHeader('Cache-Control', 'no-store');
    next();
  }
}
