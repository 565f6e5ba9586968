import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import pg from 'pg';
import { databaseConfig, type DatabaseConfig } from '../config/configuration';

/** A pg_lsn ("16/B374D848") as a number that orders as the WAL does. */
export const lsnOf = (text: string | null | undefined): bigint | null => {
  if (!text) return null;
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
};

const MONITOR_INTERVAL_MS = 200;
/** The primary's positions remembered to tell a replica's lag in time. */
const PRIMARY_SAMPLES = 200;
const REPLAY = `SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text AS replay`;

export interface ReplicaState {
  name: string;
  up: boolean;
  lagMs: number | null;
}

class Replica {
  readonly pool: pg.Pool;
  replay: bigint | null = null;
  up = false;
  lagMs: number | null = null;
  measuring: Promise<void> | null = null;

  constructor(
    readonly name: string,
    url: string,
    poolSize: number,
    timeoutMs: number,
  ) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
      application_name: 'settlement-oracle-reads',
    });
    this.pool.on('error', () => undefined); // an idle connection that dies is dropped; the monitor says so
  }
}

// DATABASE_READ_URL's replicas (contract §9): a read goes to one that has replayed every change this instance has
// read and lags less than DB_READ_MAX_LAG_MS, else to the primary. Lag is told in time from the primary's
// positions, noted by the change log's reads.
@Injectable()
export class ReadReplicas implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplicas');
  private readonly replicas: Replica[];
  private readonly maxLagMs: number;
  private readonly primary: { lsn: bigint; at: number }[] = [];
  private required: bigint | null = null;
  private next = 0;
  /** Reads that went to a replica, and to the primary instead. */
  readonly reads = { replica: 0, primary: 0 };
  private timer: NodeJS.Timeout | undefined;

  constructor(@Inject(databaseConfig.KEY) config: DatabaseConfig) {
    this.maxLagMs = config.readMaxLagMs;
    this.replicas = config.readUrls.map(
      (url, i) => new Replica(`replica-${i + 1}`, url, config.poolSize, config.statementTimeoutMs + 500),
    );
  }

  get configured(): boolean {
    return this.replicas.length > 0;
  }

  async onModuleInit(): Promise<void> {
    if (!this.configured) return;
    await this.monitor();
    this.timer = setInterval(() => void this.monitor(), MONITOR_INTERVAL_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => undefined)));
  }

  /** The primary was at `lsn` now (the change log's reads tell). */
  notePrimary(lsn: string): void {
    const position = lsnOf(lsn);
    if (position === null) return;
    this.primary.push({ lsn: position, at: performance.now() });
    if (this.primary.length > PRIMARY_SAMPLES) this.primary.shift();
  }

  /** A replica serves reads only once it has replayed this far (the last change this instance read). */
  require(lsn: string | null): void {
    const position = lsnOf(lsn);
    if (position !== null && (this.required === null || position > this.required)) this.required = position;
  }

  /** A replica for a read now, in turn (null: the primary); one last seen short of the known changes is asked again first. */
  async pick(): Promise<pg.Pool | null> {
    const fresh = this.fresh();
    if (fresh || this.required === null) return fresh;
    const behind = this.replicas.filter((replica) => replica.up && replica.replay !== null && replica.replay < this.required!);
    if (behind.length === 0) return null;
    await Promise.all(behind.map((replica) => this.measure(replica)));
    return this.fresh();
  }

  private fresh(): pg.Pool | null {
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.next++ % this.replicas.length];
      if (this.serves(replica)) return replica.pool;
    }
    return null;
  }

  /** A read on `pool` failed: it serves no more until the monitor hears it again. */
  failed(pool: pg.Pool): void {
    const replica = this.replicas.find((candidate) => candidate.pool === pool);
    if (replica) replica.up = false;
  }

  served(where: 'replica' | 'primary'): void {
    this.reads[where]++;
  }

  get states(): ReplicaState[] {
    return this.replicas.map(({ name, up, lagMs }) => ({ name, up, lagMs }));
  }

  private serves(replica: Replica): boolean {
    if (!replica.up || replica.replay === null) return false;
    if (this.required !== null && replica.replay < this.required) return false;
    return (replica.lagMs ?? 0) <= this.maxLagMs;
  }

  private async monitor(): Promise<void> {
    await Promise.all(this.replicas.map((replica) => this.measure(replica)));
  }

  /** Asks `replica` its replay position (one question at a time: those asked meanwhile share it). */
  private measure(replica: Replica): Promise<void> {
    replica.measuring ??= replica.pool
      .query<{ replay: string | null }>(REPLAY)
      .then(
        ({ rows }) => {
          replica.replay = lsnOf(rows[0].replay);
          replica.lagMs = this.lagOf(replica.replay);
          if (!replica.up) this.logger.log(`${replica.name} serves reads (lag ${replica.lagMs} ms)`);
          replica.up = true;
        },
        (error: Error) => {
          if (replica.up) this.logger.warn(`${replica.name} does not answer: reads go to the primary (${error.message})`);
          replica.up = false;
        },
      )
      .finally(() => (replica.measuring = null));
    return replica.measuring;
  }

  /** How long ago the primary was first seen past `replay`: 0 when it has not been. */
  private lagOf(replay: bigint | null): number | null {
    if (replay === null) return null;
    const ahead = this.primary.find((sample) => sample.lsn > replay);
    return ahead ? Math.round(performance.now() - ahead.at) : 0;
  }
}
