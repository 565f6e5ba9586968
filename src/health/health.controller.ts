import { Controller, Get, UseFilters } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { RawResponse } from '../common/raw-response.decorator';
import { HttpStatusFilter } from './http-status.filter';

const READY_TIMEOUT_MS = 1000;

/** Liveness and readiness probes: real HTTP status codes (200/503), not the envelope. */
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
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** The database answers within a short timeout: send traffic here. */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: READY_TIMEOUT_MS })]);
  }
}
