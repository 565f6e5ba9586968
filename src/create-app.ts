import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module';
import { httpConfig } from './config/configuration';
import { trustProxy } from './config/trust-proxy';
import { ExpressAdapterWithDeadlines } from './edge/http-server';
import { parseQuery } from './edge/query-parser';
import { ApiDocsRoutes } from './api-docs/api-docs';
import { StartupQuietLogger } from './observability/startup-quiet-logger';

/** The application exactly as production runs it; tests use it too. The request pipeline is registered by AppModule. */
export async function createApp(): Promise<NestExpressApplication> {
  const http = httpConfig();
  // JsonBodyInterceptor reads the body, after the guards. A failed start is rethrown (main.ts prints it as one
  // line), neither logged with its stack by Nest nor answered by process.abort().
  const app = await NestFactory.create<NestExpressApplication>(AppModule, new ExpressAdapterWithDeadlines(http), {
    bodyParser: false,
    bufferLogs: true,
    autoFlushLogs: false,
    abortOnError: false,
  });
  app.useLogger(new StartupQuietLogger(app.get(Logger)));
  app.flushLogs();

  app.disable('x-powered-by');
  // Every answer is a whole envelope with HTTP 200: no ETag, so no body is hashed either.
  app.disable('etag');
  app.set('query parser', parseQuery);
  app.set('trust proxy', trustProxy(http.trustProxy));
  app.get(ApiDocsRoutes).attach(app);
  return app;
}
