import { Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Environment } from '../config/environment';
import { LogRedaction } from './log-redaction';
import { MetricsServer } from './metrics-server';
import { MetricsService } from './metrics.service';
import { RequestObservationMiddleware } from './request-observation.middleware';

@Global()
@Module({
  providers: [
    MetricsService,
    MetricsServer,
    {
      provide: LogRedaction,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Environment, true>) => new LogRedaction(config.get('ADMIN_MASTER_KEY', { infer: true })),
    },
  ],
  exports: [MetricsService, MetricsServer, LogRedaction],
})
export class ObservabilityModule implements NestModule {
  /** First of all middleware (a global module's come first): whatever answers a request, it is logged and counted. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestObservationMiddleware).forRoutes('/');
  }
}
