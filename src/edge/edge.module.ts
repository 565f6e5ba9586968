import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { BodyBudgetMiddleware } from './body-budget.middleware';
import { ConnectionLimitMiddleware, ConnectionLimits } from './connections';
import { CorsMiddleware } from './cors.middleware';
import { EdgeMiddleware } from './edge.middleware';
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
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(EdgeMiddleware).forRoutes('/');
  }
}
