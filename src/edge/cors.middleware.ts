import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { httpConfig, type HttpConfig } from '../config/configuration';
import { successEnvelope } from '../common/envelope';

/** A preflight's answer: the CORS headers say what is allowed; the body is the envelope of every answer. */
const PREFLIGHT_ANSWER = successEnvelope({});

// Inside the pipeline, not Nest's `enableCors` (mounted ahead of every middleware): a preflight gets the request id,
// security headers and log line, and HTTP 200 with the envelope (contract §1; browsers take any 2xx). An OPTIONS
// request that is no preflight goes on as any unknown route (4044).
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
