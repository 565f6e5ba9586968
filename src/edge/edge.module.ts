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

// The middleware runs after ObservabilityModule's (global, so first). The per-connection limit precedes CORS, so
// pipelined preflights are bounded like any request. '/' is Express's cheap match for every path.
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

// First among each POST handler's own interceptors; an instance, as the modules were already scanned for classes.
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
