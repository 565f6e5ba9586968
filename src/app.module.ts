import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import { AdminGuard } from './auth/admin.guard';
import { ApiKeyGuard } from './auth/api-key.guard';
import { FailedAuthGuard } from './auth/failed-auth.guard';
import { AuthModule } from './auth/auth.module';
import { BackOfficeModule } from './back-office/back-office.module';
import { ChangesModule } from './changes/changes.module';
import { EnvelopeExceptionFilter } from './common/envelope-exception.filter';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { ConnectionLimitMiddleware, ConnectionLimits } from './common/http/connections';
import { BodyBudgetMiddleware } from './common/http/body-budget.middleware';
import { CorsMiddleware, corsOrigins } from './common/http/cors.middleware';
import { LoadSheddingMiddleware } from './common/http/load-shedding.middleware';
import { ProtocolErrors } from './common/http/protocol-errors';
import { JsonBodyInterceptor } from './common/json-body.interceptor';
import { RequestContextMiddleware } from './common/request-context.middleware';
import { SecurityHeadersMiddleware } from './common/security-headers';
import { EnvelopeValidationPipe } from './common/envelope-validation.pipe';
import { type Environment, validateEnvironment } from './config/environment';
import { DatabaseModule } from './database/database.module';
import { DemoModule } from './demo/demo.module';
import { DisputesModule } from './disputes/disputes.module';
import { ApiDocsRoutes } from './openapi/api-docs';
import { HealthModule } from './health/health.module';
import { MarketsModule } from './markets/markets.module';
import { loggingOptions } from './observability/logging';
import { MetricsService } from './observability/metrics.service';
import { ObservabilityModule } from './observability/observability.module';
import { RateLimitGuard } from './observability/rate-limit.guard';
import { rateLimitOptions } from './observability/rate-limits';
import { RequestObservationMiddleware } from './observability/request-observation.middleware';
import { ReviewModule } from './review/review.module';
import { SCHEMA } from './schema';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, validate: validateEnvironment }),
    LoggerModule.forRootAsync({ inject: [ConfigService], useFactory: loggingOptions }),
    ThrottlerModule.forRootAsync({ inject: [ConfigService, MetricsService], useFactory: rateLimitOptions }),
    DatabaseModule.forRoot(SCHEMA),
    ObservabilityModule,
    ChangesModule,
    HealthModule,
    AuthModule,
    MarketsModule,
    DisputesModule,
    ReviewModule,
    WebhooksModule,
    DemoModule,
    BackOfficeModule,
  ],
  providers: [
    { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
    // The body is read after the guards (JsonBodyInterceptor), inside the envelope.
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
    { provide: APP_INTERCEPTOR, useClass: JsonBodyInterceptor },
    { provide: APP_PIPE, useClass: EnvelopeValidationPipe },
    // In this order: addresses that failed authentication too often, then the rate limits, so
    // floods of bad credentials never reach the database nor take rate-limit windows.
    { provide: APP_GUARD, useClass: FailedAuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: AdminGuard },
    ConnectionLimits,
    ProtocolErrors,
    ApiDocsRoutes,
  ],
})
export class AppModule implements NestModule {
  constructor(private readonly config: ConfigService<Environment, true>) {}

  /**
   * Every request, in this order: its observation (log line and metrics, written when it is
   * answered, whatever answers it), its id, the security headers, the per-connection limit (so
   * that preflights pipelined on one connection are bounded like any request), CORS when
   * CORS_ORIGINS is set, the body budget, the per-process limit. Then Nest's guards (failed
   * authentications, rate limit, partner key, admin credentials), the envelope interceptor, the
   * body (JsonBodyInterceptor: read only once the guards let the request in), the validation
   * pipe, the handler, and the exception filter. '/' is Express's cheap match for
   * every path.
   */
  configure(consumer: MiddlewareConsumer): void {
    const cors = corsOrigins(this.config).length > 0 ? [CorsMiddleware] : [];
    consumer
      .apply(
        RequestObservationMiddleware,
        RequestContextMiddleware,
        SecurityHeadersMiddleware,
        ConnectionLimitMiddleware,
        ...cors,
        BodyBudgetMiddleware,
        LoadSheddingMiddleware,
      )
      .forRoutes('/');
  }
}
