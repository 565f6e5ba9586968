import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE, DiscoveryModule } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AuthModule } from './auth/auth.module';
import { BackOfficeModule } from './back-office/back-office.module';
import { ChangesModule } from './changes/changes.module';
import { EnvelopeExceptionFilter } from './errors/envelope-exception.filter';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { EnvelopeValidationPipe } from './common/envelope-validation.pipe';
import { CONFIGURATION, loggingConfig } from './config/configuration';
import { DatabaseModule } from './database/database.module';
import { DemoModule } from './demo/demo.module';
import { DisputesModule } from './disputes/disputes.module';
import { EdgeModule } from './edge/edge.module';
import { ApiDocsRoutes } from './api-docs/api-docs';
import { HealthModule } from './health/health.module';
import { MarketsModule } from './markets/markets.module';
import { LogRedaction } from './observability/log-redaction';
import { loggingOptions } from './observability/logging';
import { ObservabilityModule } from './observability/observability.module';
import { RateLimitsModule } from './rate-limits/rate-limits.module';
import { ReviewModule } from './review/review.module';
import { SCHEMA } from './schema';
import { WebhooksModule } from './webhooks/webhooks.module';

// Pipeline: Observability and Edge middleware, the route's guard (ApiKeyGuard, AdminGuard, or RateLimitGuard on public
// reads), the envelope interceptor, the body on POST routes (@JsonBody(): read only once the guard lets the request in),
// the validation pipe, the handler, the filter.
@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: CONFIGURATION }),
    LoggerModule.forRootAsync({ inject: [loggingConfig.KEY, LogRedaction], useFactory: loggingOptions }),
    DatabaseModule.forRoot(SCHEMA),
    ObservabilityModule,
    EdgeModule,
    RateLimitsModule,
    ChangesModule,
    HealthModule,
    AuthModule,
    MarketsModule,
    DisputesModule,
    ReviewModule,
    WebhooksModule,
    DemoModule,
    BackOfficeModule,
    DiscoveryModule,
  ],
  providers: [
    { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
    { provide: APP_PIPE, useClass: EnvelopeValidationPipe },
    ApiDocsRoutes,
  ],
})
export class AppModule {}
