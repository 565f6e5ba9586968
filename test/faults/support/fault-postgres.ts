import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { EmbeddedDatabase } from '../../../src/database/embedded-database';

/** A fresh database on the fault suite's own server, and a TypeORM handle for seeding and checks. */
export interface FaultDatabase {
  name: string;
  url: string;
  /** Plain TypeORM connection (no entities): `query()` for Fixtures and for the checks. */
  dataSource: DataSource;
}

/**
 * One suite's own embedded PostgreSQL (never the machine's shared server), which the suite may
 * stop and start again mid-test: the cluster lives in a temporary folder and the restart reuses
 * the same data and the same port, so the servers under test can reconnect by themselves.
 */
export class FaultPostgres {
  private running: EmbeddedDatabase | null;
  private readonly databases: FaultDatabase[] = [];

  private constructor(
    private readonly dataDir: string,
    embedded: EmbeddedDatabase,
    /** Admin URL of the server (database `postgres`). */
    readonly url: string,
    readonly port: number,
  ) {
    this.running = embedded;
  }

  static async start(): Promise<FaultPostgres> {
    const dataDir = await mkdtemp(join(tmpdir(), 'oracle-faults-pg-'));
    await chmod(dataDir, 0o755); // the server runs as the "postgres" user when we are root
    const embedded = await EmbeddedDatabase.start({ dataDir });
    return new FaultPostgres(dataDir, embedded, embedded.url, Number(new URL(embedded.url).port));
  }

  get isRunning(): boolean {
    return this.running !== null;
  }

  /** Stops the server (PostgreSQL "fast" shutdown: sessions are terminated); data is kept. */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = null;
    await running?.stop();
  }

  /** Starts the server again on the same port with the same data. */
  async restart(): Promise<void> {
    if (this.running) return;
    this.running = await EmbeddedDatabase.start({ dataDir: this.dataDir, port: this.port });
  }

  /** Sets server settings (ALTER SYSTEM) and restarts the server so that they apply: e.g. a library to preload. */
  async configure(settings: Record<string, string>): Promise<void> {
    const admin = new pg.Client({ connectionString: this.url });
    await admin.connect();
    try {
      for (const [name, value] of Object.entries(settings)) await admin.query(`ALTER SYSTEM SET ${name} = '${value}'`);
    } finally {
      await admin.end();
    }
    await this.stop();
    await this.restart();
  }

  /** A fresh, empty database; the server under test applies the migrations when it starts. */
  async createDatabase(): Promise<FaultDatabase> {
    const name = `oracle_faults_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: this.url });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const parsed = new URL(this.url);
    parsed.pathname = `/${name}`;
    const url = parsed.toString();
    const dataSource = new DataSource({ type: 'postgres', url, poolSize: 5, applicationName: 'faults-test' });
    const database = { name, url, dataSource };
    this.databases.push(database);
    return database;
  }

  /** Opens (or reopens, after an outage) a database's TypeORM handle. */
  async connect(database: FaultDatabase): Promise<DataSource> {
    if (database.dataSource.isInitialized) await database.dataSource.destroy();
    await database.dataSource.initialize();
    return database.dataSource;
  }

  /** Hangs the server (SIGSTOP to the postmaster and every process of it): connections stay open and nothing answers. Returns what resumes it. */
  async freeze(): Promise<() => Promise<void>> {
    const postmaster = Number((await readFile(join(this.running!.clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const children: number[] = [];
    for (const entry of await readdir('/proc')) {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      // The parent pid is the second field after the command, which is in parentheses.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) children.push(Number(entry));
    }
    const processes = [postmaster, ...children];
    for (const pid of processes) process.kill(pid, 'SIGSTOP');
    return async () => {
      for (const pid of processes) process.kill(pid, 'SIGCONT');
    };
  }

  /** Closes every handle, stops the server and deletes its folder. */
  async destroy(): Promise<void> {
    for (const database of this.databases) {
      if (database.dataSource.isInitialized) await database.dataSource.destroy().catch(() => undefined);
    }
    await this.stop().catch(() => undefined);
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
