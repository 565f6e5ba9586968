import { Inject, MiddlewareConsumer, Module, NestModule, RequestMethod, type Type } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { httpConfig, type HttpConfig } from '../config/configuration';
import { BodyBudgetMiddleware } from './body-budget.middleware';
import { ConnectionLimitMiddleware, ConnectionLimits } from './connections';
import { CorsMiddleware } from './cors.middleware';
import { JsonBodyInterceptor } from './json-body.interceptor';
import { LoadSheddingMiddleware } from './load-shedding.middleware';
import { ProtocolErrors } from './protocol-errors';
import { RequestChecksMiddleware } from './request-checks.middleware';
import { SecurityHeadersMiddleware } from './security-headers.middleware';

/**
 * What the service does at its edge, before any route's own work: the HTTP server's deadlines and
 * read order (ExpressAdapterWithDeadlines, made in createApp), protocol errors, and this
 * middleware, in order after the request's observation (ObservabilityModule, global, so first):
 * the request checks, the security headers, the per-connection limit (preflights pipelined on one
 * connection are bounded like any request), CORS when CORS_ORIGINS is set, the body budget on
 * POST routes, the per-process limit. '/' is Express's cheap match for every path. The JSON body
 * is read on POST routes only, after the guard (JsonBodyInterceptor, bound before the routes are).
 */
@Module({
  providers: [ConnectionLimits, ProtocolErrors],
})
export class EdgeModule implements NestModule {
  constructor(
    @Inject(httpConfig.KEY) private readonly http: HttpConfig,
    modules: ModulesContainer,
  ) {
    readBodiesOnPostRoutes(modules);
  }

  configure(consumer: MiddlewareConsumer): void {
    const cors = this.http.corsOrigins.length > 0 ? [CorsMiddleware] : [];
    consumer.apply(RequestChecksMiddleware, SecurityHeadersMiddleware, ConnectionLimitMiddleware, ...cors).forRoutes('/');
    consumer.apply(BodyBudgetMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.POST });
    consumer.apply(LoadSheddingMiddleware).forRoutes('/');
  }
}

/**
 * JsonBodyInterceptor first among each POST handler's own interceptors (the global ones run
 * before): an instance, as the modules were scanned for interceptor classes already.
 */
function readBodiesOnPostRoutes(modules: ModulesContainer): void {
  const jsonBody = new JsonBodyInterceptor();
  for (const module of modules.values()) {
    for (const { metatype } of module.controllers.values()) {
      const prototype = (metatype as Type).prototype as object;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler: unknown = Object.getOwnPropertyDescriptor(prototype, name)?.value;
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) !== RequestMethod.POST) continue;
        const interceptors: unknown[] = Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? [];
        if (!interceptors.some((interceptor) => interceptor instanceof JsonBodyInterceptor)) {
          Reflect.defineMetadata(INTERCEPTORS_METADATA, [jsonBody, ...interceptors], handler);
        }
      }
    }
  }
}
