import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

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

@Injectable()
export class SecurityHeadersMiddleware implements NestMiddleware {
  private readonly api = helmet();
  private readonly docs = helmet({ contentSecurityPolicy: DOCS_CSP, frameguard: { action: 'deny' } });

  use(req: Request, res: Response, next: NextFunction): void {
    const headers = DOCS.test(req.path) ? this.docs : this.api;
    if (!ADMIN_API.test(req.path)) return headers(req, res, next);
    headers(req, res, () => {
      res.setHeader('Cache-Control', 'no-store');
      next();
    });
  }
}
