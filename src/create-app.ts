import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import type { Environment } from './config/environment';
import { apiSecurityHeaders } from './common/security-headers';
import { setUpApiDocs } from './docs/api-docs';

/**
 * Builds the application exactly as production runs it; tests use it too. The filter,
 * interceptor, pipe, guards and middleware are registered inside AppModule; what lives here
 * is Express-level: logger, security headers, CORS, proxy trust, the API docs.
 */
export async function createApp(): Promise<NestExpressApplication> {
  // The body is parsed by RequestContextMiddleware (64 KiB limit, errors in the envelope).
  // A failure to start is rethrown to the caller (main.ts prints it as one line), neither
  // logged with its stack by Nest nor answered by process.abort().
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    bufferLogs: true,
    autoFlushLogs: false,
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  const config = app.get(ConfigService<Environment, true>);

  app.disable('x-powered-by');
  // No conditional requests: Express answers a matching If-None-Match (`*` matches anything)
  // or If-Modified-Since with a bodiless 304, and every answer here is an envelope with HTTP
  // 200 (spec §1). Without ETags, no body is hashed either.
  app.disable('etag');
  app.use((req: Request, _res: Response, next: NextFunction) => {
    delete req.headers['if-none-match'];
    delete req.headers['if-modified-since'];
    next();
  });
  app.set('trust proxy', trustProxy(config.get('TRUST_PROXY', { infer: true })));
  const corsOrigins = config.get('CORS_ORIGINS', { infer: true });
  if (corsOrigins) app.enableCors({ origin: corsOrigins.split(',').map((origin) => origin.trim()) });

  // Strict security headers on the API; the docs UI needs its own scripts and styles.
  app.use((req: Request, res: Response, next: NextFunction) =>
    req.path.startsWith('/docs') ? next() : apiSecurityHeaders(req, res, next),
  );

  setUpApiDocs(app);
  return app;
}

/** TRUST_PROXY as Express understands it. */
export function trustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
