import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import cors from 'cors';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Environment } from '../../config/environment';

/** The origins CORS_ORIGINS allows, or none: CORS off. */
export function corsOrigins(config: ConfigService<Environment, true>): string[] {
  return (config.get('CORS_ORIGINS', { infer: true }) ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

/**
 * CORS (the `cors` package) for CORS_ORIGINS, inside the pipeline: a preflight is answered 204
 * with the request id, the security headers and its log line like any answer (Nest's
 * `enableCors` mounts it ahead of every middleware, so preflights had none of them). An OPTIONS
 * request that is no preflight (no Origin, or no Access-Control-Request-Method) goes on to be
 * answered as any unknown route is: 4044 in the envelope.
 */
@Injectable()
export class CorsMiddleware implements NestMiddleware {
  private readonly cors: RequestHandler;

  constructor(@Inject(ConfigService) config: ConfigService<Environment, true>) {
    this.cors = cors({ origin: corsOrigins(config) });
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const preflightHeaders = req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined;
    if (req.method === 'OPTIONS' && !preflightHeaders) return next();
    this.cors(req, res, next);
  }
}
