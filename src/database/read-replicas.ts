import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { databaseConfig, type DatabaseConfig } from '../config/configuration';
import { isDatabaseUnavailable } from './database-errors';
import { replicaOptions } from './data-source-options';

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

// A DataSource of its own per replica: TypeORM's replication mode picks a replica at random and never falls back,
// while a read here goes only to one within DB_READ_MAX_LAG_MS that has this instance's changes, else to the primary.
class Replica {
  readonly dataSource: DataSource;
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
    this.dataSource = new DataSource(replicaOptions(url, poolSize, timeoutMs));
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
    // Initialized before their first read: TypeORM opens a pool without connecting it, and the monitor finds out.
    await Promise.all(this.replicas.map((replica) => replica.dataSource.initialize().catch(() => undefined)));
    await this.monitor();
    this.timer = setInterval(() => void this.monitor(), MONITOR_INTERVAL_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.filter((replica) => replica.dataSource.isInitialized).map((replica) => replica.dataSource.destroy().catch(() => undefined)));
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

  /** `text` on a replica that has every change this instance knows of; undefined when none serves (the caller reads the primary). */
  async read<Row>(text: string, values: unknown[]): Promise<Row[] | undefined> {
    if (!this.configured) return undefined;
    const replica = await this.pick();
    if (replica) {
      try {
        const rows = (await replica.dataSource.query<Row[]>(text, values)) as Row[];
        this.served('replica');
        return rows;
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        replica.up = false; // it serves no more until the monitor hears it again
      }
    }
    this.served('primary');
    return undefined;
  }

  /** A replica for a read now, in turn (null: the primary); one last seen short of the known changes is asked again first. */
  private async pick(): Promise<Replica | null> {
    const fresh = this.fresh();
    if (fresh || this.required === null) return fresh;
    const behind = this.replicas.filter((replica) => replica.up && replica.replay !== null && replica.replay < this.required!);
    if (behind.length === 0) return null;
    await Promise.all(behind.map((replica) => this.measure(replica)));
    return this.fresh();
  }

  private fresh(): Replica | null {
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.next++ % this.replicas.length];
      if (this.serves(replica)) return replica;
    }
    return null;
  }

  private served(where: 'replica' | 'primary'): void {
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
    replica.measuring ??= this.replayOf(replica)
      .then(
        (rows) => {
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

  private async replayOf(replica: Replica): Promise<{ replay: string | null }[]> {
    if (!replica.dataSource.isInitialized) await replica.dataSource.initialize();
    return replica.dataSource.query<{ replay: string | null }[]>(REPLAY);
  }

  /** How long ago the primary was first seen past `replay`: 0 when it has not been. */
  private lagOf(replay: bigint | null): number | null {
    if (replay === null) return null;
    const ahead = this.primary.find((sample) => sample.lsn > replay);
    return ahead ? Math.round(performance.now() - ahead.at) : 0;
  }
}
