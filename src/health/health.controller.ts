import { Controller, Get, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { RawResponse } from '../common/raw-response.decorator';
import { HttpStatusFilter } from './http-status.filter';

const READY_TIMEOUT_MS = 1000;

/** Liveness and readiness probes: real HTTP status codes (200/503), not the envelope. */
@ApiTags('operations')
@Controller('health')
@RawResponse()
@UseFilters(HttpStatusFilter)
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  /** The process is up and serving HTTP. */
  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process serves HTTP (no envelope)' })
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** The database answers within a short timeout: send traffic here. */
  @Get('ready')
  @ApiOperation({ summary: 'Readiness: 200 when the database answers within 1 s, else 503 (no envelope)' })
  @HealthCheck()
  ready() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: READY_TIMEOUT_MS })]);
  }
}
