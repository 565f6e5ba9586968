import { MiddlewareConsumer, Module, NestModule, RequestMethod, type Type } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { BodyBudgetMiddleware } from './body-budget.middleware';
import { ConnectionLimitMiddleware, ConnectionLimits } from './connections';
import { CorsMiddleware } from './cors.middleware';
import { EdgeMiddleware } from './edge.middleware';
import { JsonBodyInterceptor } from './json-body.interceptor';
import { LoadSheddingMiddleware } from './load-shedding.middleware';
import { ProtocolErrors } from './protocol-errors';
import { RequestChecksMiddleware } from './request-checks.middleware';
import { SecurityHeadersMiddleware } from './security-headers.middleware';

// EdgeMiddleware runs after ObservabilityModule's (global, so first); '/' is Express's cheap match for every path.
@Module({
  providers: [
    ConnectionLimits,
    ProtocolErrors,
    RequestChecksMiddleware,
    SecurityHeadersMiddleware,
    ConnectionLimitMiddleware,
    CorsMiddleware,
    BodyBudgetMiddleware,
    LoadSheddingMiddleware,
  ],
})
export class EdgeModule implements NestModule {
  constructor(modules: ModulesContainer) {
    readBodiesOnPostRoutes(modules);
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(EdgeMiddleware).forRoutes('/');
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
