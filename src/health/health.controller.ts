import { Controller, Get, UseFilters } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { ConfigService } from '@nestjs/config';
import type { Environment } from '../config/environment';
import { ReadReplicas } from '../database/read-replicas';
import { Sql, sql } from '../database/sql';
import { ExpressAdapterWithDeadlines } from '../edge/http-server';
import { Public } from '../auth/access.decorators';
import { RawResponse } from '../common/raw-response.decorator';
import { DatabaseActivity } from '../database/database-activity';
import { HttpStatusFilter } from './http-status.filter';

const READY_TIMEOUT_MS = 1000;
const LATE = Symbol('late');
const WRITABLE = sql<{ writable: boolean }>`SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable`;

/** Liveness and readiness probes: real HTTP status codes (200/503), not the envelope. */
@ApiTags('operations')
@Controller('health')
@RawResponse()
@Public()
@UseFilters(HttpStatusFilter)
export class HealthController {
  /** Probes asked together share one ping: a flood of them (they are never shed) sends one at a time. */
  private pending?: ReturnType<HealthController['databaseAnswers']>;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly sql: Sql,
    private readonly activity: DatabaseActivity,
    private readonly adapterHost: HttpAdapterHost,
    private readonly replicas: ReadReplicas,
    config: ConfigService<Environment, true>,
  ) {
    this.poolSize = config.get('DB_POOL_SIZE', { infer: true });
  }

  private readonly poolSize: number;

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
    return this.health.check([() => this.databaseCheck(), () => this.replicasCheck()]);
  }

  /** Replicas never make the instance unready (their reads go to the primary): their state, told. */
  private replicasCheck() {
    const replicas = this.replicas.states;
    return this.indicators.check('replicas').up(replicas.length > 0 ? { replicas } : { replicas: 'none configured' });
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
   * A ping on the service's pool, given 1 s: the database answers, and takes writes (a standby,
   * or a primary turned read-only in a failover, does not: every write would be 5030). A ping
   * that waited that long for a connection of a full pool while the database answered other
   * statements meanwhile finds the instance busy (its requests get 5031), not the database down:
   * "degraded", still 200, so that a load balancer does not take every busy instance out at once.
   */
  private async databaseAnswers() {
    const database = this.indicators.check('database');
    const poolFull = this.sql.pool.idleCount === 0 && this.sql.pool.totalCount >= this.poolSize;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(resolve, READY_TIMEOUT_MS, LATE)));
    const ping = this.sql.rows(WRITABLE).then(([row]) => row, (error: unknown) => ({ error }));
    const outcome = await Promise.race([ping, late]);
    clearTimeout(timer);
    if (outcome !== LATE && 'writable' in outcome) {
      return outcome.writable ? database.up() : database.down({ message: 'the database takes no writes (a standby, or read-only)' });
    }
    // Answers already in the sockets are read first (DatabaseActivity.mayHaveUnreadAnswers).
    await new Promise(setImmediate);
    // Judged on the window requests are (DB_CONNECT_TIMEOUT_MS): an instance answering 5031 "come
    // back in a second" does not call itself unready meanwhile. A ping that had a connection and
    // no answer is the database's silence.
    const waited = outcome === LATE ? poolFull && this.activity.answeredRecently() : this.activity.isOverload(outcome.error);
    if (waited) return database.degraded({ message: 'the database answers; this instance is waiting for its connections' });
    return database.down({ message: 'the database did not answer' });
  }
}
