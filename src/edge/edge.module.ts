import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Environment } from '../config/environment';
import { BodyBudgetMiddleware } from './body-budget.middleware';
import { ConnectionLimitMiddleware, ConnectionLimits } from './connections';
import { CorsMiddleware, corsOrigins } from './cors.middleware';
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
 * POST routes, the per-process limit. '/' is Express's cheap match for every path.
 */
@Module({
  providers: [ConnectionLimits, ProtocolErrors],
})
export class EdgeModule implements NestModule {
  constructor(private readonly config: ConfigService<Environment, true>) {}

  configure(consumer: MiddlewareConsumer): void {
    const cors = corsOrigins(this.config).length > 0 ? [CorsMiddleware] : [];
    consumer.apply(RequestChecksMiddleware, SecurityHeadersMiddleware, ConnectionLimitMiddleware, ...cors).forRoutes('/');
    consumer.apply(BodyBudgetMiddleware).forRoutes({ path: '{*path}', method: RequestMethod.POST });
    consumer.apply(LoadSheddingMiddleware).forRoutes('/');
  }
}
