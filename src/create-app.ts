import type { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';

/**
 * Builds the application exactly as production runs it; tests use it too. Everything else
 * (filter, interceptor, pipe, guards, middleware) is registered inside AppModule.
 */
export async function createApp(): Promise<INestApplication> {
  // The body is parsed by RequestContextMiddleware (64 KiB limit, errors in the envelope).
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    logger: logLevels(process.env.LOG_LEVEL),
  });
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  return app;
}

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
const NAMED: Record<string, number> = { fatal: 0, error: 1, warn: 2, info: 3, debug: 4, trace: 5 };

/** LOG_LEVEL (pino-style names) to the Nest logger's levels; "silent" logs nothing. */
function logLevels(level = 'info'): LogLevel[] | false {
  if (level === 'silent') return false;
  return LEVELS.slice(0, (NAMED[level] ?? NAMED.info) + 1);
}
