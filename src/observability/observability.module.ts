import { Global, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { authConfig, type AuthConfig } from '../config/configuration';
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
      inject: [authConfig.KEY],
      useFactory: (config: AuthConfig) => new LogRedaction(config.adminMasterKey),
    },
  ],
  exports: [MetricsService, MetricsServer, LogRedaction],
})
export class ObservabilityModule implements NestModule {
  /** First of all middleware but nestjs-pino's (global modules' come first): whatever answers a request, it is counted. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestObservationMiddleware).forRoutes('/');
  }
}
