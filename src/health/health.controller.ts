import { Controller, Get, UseFilters } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Public } from '../auth/access.decorators';
import { RawResponse } from '../common/raw-response.decorator';
import { ExpressAdapterWithDeadlines } from '../edge/http-server';
import { DatabaseHealthIndicator } from './database.health';
import { HttpStatusFilter } from './http-status.filter';

/** Liveness and readiness probes: real HTTP status codes (200/503), not the envelope. */
@ApiTags('operations')
@Controller('health')
@RawResponse()
@Public()
@UseFilters(HttpStatusFilter)
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: DatabaseHealthIndicator,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process serves HTTP (no envelope)' })
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @ApiOperation({
    summary:
      'Readiness: 200 when the database answers within 1 s ("degraded" when it answers others while this instance waits for its connections), else 503; 503 from SIGTERM on (no envelope)',
  })
  @HealthCheck()
  ready() {
    if (this.stopping()) return this.health.check([() => this.indicators.check('instance').down({ message: 'the instance is stopping' })]);
    return this.health.check([() => this.database.writable(), () => this.database.replicasState(), () => this.database.changeSignalState()]);
  }

  /** SIGTERM was received: a balancer sends no more, while what arrives is still answered. */
  private stopping(): boolean {
    const adapter = this.adapterHost.httpAdapter;
    return adapter instanceof ExpressAdapterWithDeadlines && adapter.stopping;
  }
}
