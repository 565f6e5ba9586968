import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { httpConfig, type HttpConfig } from '../config/configuration';
import { successEnvelope } from '../common/envelope';

/** A preflight's answer: the CORS headers say what is allowed; the body is the envelope of every answer. */
const PREFLIGHT_ANSWER = successEnvelope({});

/**
 * CORS (the `cors` package) for CORS_ORIGINS, inside the pipeline: a preflight is answered here,
 * HTTP 200 with the success envelope like every answer of the API (contract §1; browsers take any
 * 2xx), with the request id, the security headers and its log line (Nest's `enableCors` mounts
 * `cors` ahead of every middleware, so preflights had none of them). An OPTIONS request that is
 * no preflight (no Origin, or no Access-Control-Request-Method) goes on to be answered as any
 * unknown route is: 4044 in the envelope.
 */
@Injectable()
export class CorsMiddleware implements NestMiddleware {
  private readonly cors: RequestHandler;

  constructor(@Inject(httpConfig.KEY) config: HttpConfig) {
    this.cors = cors({ origin: config.corsOrigins, preflightContinue: true });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if (req.method !== 'OPTIONS') return void this.cors(req, res, next);
    const preflight = req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    if (!preflight) return next();
    void this.cors(req, res, () => {
      res.locals.envelopeCode = 0;
      res.status(200).json(PREFLIGHT_ANSWER);
    });
  }
}
