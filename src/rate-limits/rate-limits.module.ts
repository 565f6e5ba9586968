import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { rateLimitConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';
import { RateLimitGuard } from './rate-limit.guard';
import { rateLimitOptions } from './rate-limits';

/** The per-minute budgets (@nestjs/throttler, its store in memory or Redis): public reads name RateLimitGuard, credential routes run it through CredentialGate. */
@Module({
  imports: [ThrottlerModule.forRootAsync({ inject: [rateLimitConfig.KEY, MetricsService], useFactory: rateLimitOptions })],
  providers: [RateLimitGuard],
  exports: [RateLimitGuard],
})
export class RateLimitsModule {}
