import { Controller, Get, UseFilters } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ExpressAdapterWithDeadlines } from '../common/http/http-server';
import { RawResponse } from '../common/raw-response.decorator';
import { DatabaseActivity } from '../database/database-activity';
import { HttpStatusFilter } from './http-status.filter';

const READY_TIMEOUT_MS = 1000;
const LATE = Symbol('late');

/** Liveness and readiness probes: real HTTP status codes (200/503), not the envelope. */
@ApiTags('operations')
@Controller('health')
@RawResponse()
@UseFilters(HttpStatusFilter)
export class HealthController {
  /** Probes asked together share one ping: a flood of them (they are never shed) sends one at a time. */
  private pending?: ReturnType<HealthController['databaseAnswers']>;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly activity: DatabaseActivity,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** The process is up and serving HTTP. */
  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process serves HTTP (no envelope)' })
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** The database answers within a short timeout, and the instance is not stopping: send traffic here. */
  @Get('ready')
  @ApiOperation({
    summary:
      'Readiness: 200 when the database answers within 1 s ("degraded" when it answers others while this instance waits for its connections), else 503; 503 from SIGTERM on (no envelope)',
  })
  @HealthCheck()
  ready() {
    if (this.stopping()) return this.health.check([() => this.indicators.check('instance').down({ message: 'the instance is stopping' })]);
    return this.health.check([() => this.databaseCheck()]);
  }

  /** SIGTERM was received: the instance answers what it is sent, and closes the connections, until it stops. */
  private stopping(): boolean {
    const adapter = this.adapterHost.httpAdapter;
    return adapter instanceof ExpressAdapterWithDeadlines && adapter.stopping;
  }

  private databaseCheck() {
    this.pending ??= this.databaseAnswers().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /**
   * A ping on the service's pool, given 1 s. One that waited that long for a connection of a full
   * pool while the database answered other statements meanwhile finds the instance busy (its
   * requests get 5031), not the database down: "degraded", still 200, so that a load balancer
   * does not take every busy instance out at once.
   */
  private async databaseAnswers() {
    const database = this.indicators.check('database');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(resolve, READY_TIMEOUT_MS, LATE)));
    const outcome = await Promise.race([this.dataSource.query('SELECT 1').then(() => undefined, (error: unknown) => ({ error })), late]);
    clearTimeout(timer);
    if (outcome === undefined) return database.up();
    // Answers already in the sockets are read first (DatabaseActivity.mayHaveUnreadAnswers).
    await new Promise(setImmediate);
    // Judged on the window requests are (DB_CONNECT_TIMEOUT_MS): an instance answering 5031 "come
    // back in a second" does not call itself unready meanwhile.
    const waited = outcome === LATE ? this.activity.answeredRecently() : this.activity.isOverload(outcome.error);
    if (waited) return database.degraded({ message: 'the database answers; this instance is waiting for its connections' });
    return database.down({ message: 'the database did not answer' });
  }
}
