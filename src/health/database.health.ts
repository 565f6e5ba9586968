import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { FALLBACK_POLL_MS } from '../changes/change-log';
import { ChangeSignal } from '../changes/change-signal';
import { DatabaseActivity } from '../database/database-activity';
import { ReadReplicas } from '../database/read-replicas';
import { HealthRepository } from './health.repository';

const PING_TIMEOUT_MS = 1000;
const LATE = Symbol('late');

/** Terminus indicators for the primary and the replicas. */
@Injectable()
export class DatabaseHealthIndicator {
  /** Probes asked together share one ping: a flood of them (they are never shed) sends one at a time. */
  private pending?: ReturnType<DatabaseHealthIndicator['ping']>;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly repository: HealthRepository,
    private readonly activity: DatabaseActivity,
    private readonly replicas: ReadReplicas,
    private readonly signal: ChangeSignal,
  ) {}

  // A write within 1 s: a standby or read-only primary would answer every write 5030. A ping that waited on a full pool
  // while the database answered others is "degraded", still 200: a balancer must not drop every busy instance at once.
  writable() {
    this.pending ??= this.ping().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Replicas never make the instance unready (their reads go to the primary): their state, told. */
  replicasState() {
    const replicas = this.replicas.states;
    return this.indicators.check('replicas').up(replicas.length > 0 ? { replicas } : { replicas: 'none configured' });
  }

  /** How this instance hears of changes; polling never makes it unready, changes are then up to FALLBACK_POLL_MS late. */
  changeSignalState() {
    const state = this.indicators.check('change_signal');
    return state.up(this.signal.listening ? { mode: 'listening' } : { mode: 'polling', poll_interval_ms: FALLBACK_POLL_MS });
  }

  private async ping() {
    const database = this.indicators.check('database');
    const poolFull = this.repository.poolFull;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(resolve, PING_TIMEOUT_MS, LATE)));
    const ping = this.repository.writable().then((writable) => ({ writable }), (error: unknown) => ({ error }));
    const outcome = await Promise.race([ping, late]);
    clearTimeout(timer);
    if (outcome !== LATE && 'writable' in outcome) {
      return outcome.writable ? database.up() : database.down({ message: 'the database takes no writes (a standby, or read-only)' });
    }
    // Answers already in the sockets are read first (DatabaseActivity.mayHaveUnreadAnswers).
    await new Promise(setImmediate);
    // Busy, not down, on the window requests get 5031 in; a ping that had a connection and no answer is silence.
    const waited = outcome === LATE ? poolFull && this.activity.answeredRecently() : this.activity.isOverload(outcome.error);
    if (waited) return database.degraded({ message: 'the database answers; this instance is waiting for its connections' });
    return database.down({ message: 'the database did not answer' });
  }
}
