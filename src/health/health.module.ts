import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseHealthIndicator } from './database.health';
import { HealthController } from './health.controller';
import { HealthRepository } from './health.repository';

@Module({
  imports: [TerminusModule.forRoot({ logger: false, gracefulShutdownTimeoutMs: 0 })],
  controllers: [HealthController],
  providers: [DatabaseHealthIndicator, HealthRepository],
})
export class HealthModule {}
