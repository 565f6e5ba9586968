import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { databaseConfig, type DatabaseConfig } from '../config/configuration';
import { DATABASE_LOCATION, type DatabaseLocation } from '../database/database.module';
import { Sql, sql, type Transaction } from '../database/sql';
import { MetricsService } from '../observability/metrics.service';
import { CHANGE_SIGNAL_CHANNEL, DELIVERIES_SIGNAL_CHANNEL } from './change-log.functions';

/** How often the listening session is checked (a silent drop loses notifications; TCP keep-alive alone takes minutes); the first check comes sooner. */
const HEARTBEAT_MS = 10_000;
const FIRST_CHECK_MS = 1_000;
const HEARTBEAT_TIMEOUT_MS = 5_000;
/** Reconnection backoff: 1 s doubling to 30 s. */
const RECONNECT_FIRST_MS = 1_000;
const RECONNECT_MAX_MS = 30_000;

/** Told when events were sequenced (or redeliveries queued), or deliveries queued, or when the signal may have been missed. */
export type SignalHandler = () => void;
const CHANNELS = { changes: CHANGE_SIGNAL_CHANNEL, deliveries: DELIVERIES_SIGNAL_CHANNEL } as const;
export type SignalChannel = keyof typeof CHANNELS;

/**
 * LISTENs for the sequencer's one NOTIFY per batch on a session of its own, where migrations run (DATABASE_DIRECT_URL,
 * default DATABASE_URL). A transaction pooler hands statements to other sessions: a check that finds another backend,
 * or the LISTEN gone, stops listening for good. Meanwhile the change log and fan-out poll every FALLBACK_POLL_MS.
 */
@Injectable()
export class ChangeSignal implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeSignal');
  private readonly handlers = new Map<string, SignalHandler[]>(Object.values(CHANNELS).map((channel) => [channel, []]));
  private readonly url: string;
  private readonly connectTimeoutMs: number;
  private client: Client | null = null;
  private heartbeat: NodeJS.Timeout | undefined;
  private reconnect: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;
  private isListening = false;
  /** The listening session's backend: another one answering means a pooler. */
  private backend: number | null = null;
  private pooled = false;

  constructor(
    @Inject(databaseConfig.KEY) config: DatabaseConfig,
    @Inject(DATABASE_LOCATION) location: DatabaseLocation,
    private readonly sql: Sql,
    metrics: MetricsService,
  ) {
    this.url = location.embedded ? location.url : (config.directUrl ?? location.url);
    this.connectTimeoutMs = config.connectTimeoutMs;
    metrics.measureChangeSignal(() => this.isListening);
  }

  /** A notification is heard now: the fallback timers may rest. */
  get listening(): boolean {
    return this.isListening;
  }

  get mode(): 'listening' | 'polling' {
    return this.isListening ? 'listening' : 'polling';
  }

  /** `handler` runs on every notification of `channel`, and once each time listening starts or stops (what came meanwhile was missed). */
  subscribe(handler: SignalHandler, channel: SignalChannel = 'changes'): void {
    this.handlers.get(CHANNELS[channel])!.push(handler);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnect);
    clearTimeout(this.heartbeat);
    this.isListening = false;
    await this.client?.end().catch(() => undefined);
  }

  /** Wakes every instance's fan-out (a redelivery was queued). */
  async raise(): Promise<void> {
    await this.sql.rows(sql`SELECT pg_notify(${CHANGE_SIGNAL_CHANNEL}, '')`);
  }

  /** In the fan-out's transaction (one per batch it queues): every sending instance fetches once it commits. */
  async deliveriesQueued(tx: Transaction): Promise<void> {
    await this.sql.rows(sql`SELECT pg_notify(${DELIVERIES_SIGNAL_CHANNEL}, '')`, tx);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: this.connectTimeoutMs, keepAlive: true, application_name: 'settlement-oracle-signal' });
    this.client = client;
    client.on('error', (error) => this.dropped(error, client));
    client.on('end', () => this.dropped(new Error('the connection ended'), client));
    client.on('notification', (message) => this.tell(message.channel));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_SIGNAL_CHANNEL}; LISTEN ${DELIVERIES_SIGNAL_CHANNEL}`);
      this.backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    } catch (error) {
      return this.dropped(error as Error, client);
    }
    if (this.stopped || this.client !== client) return void client.end().catch(() => undefined);
    if (this.failures > 0) this.logger.log('listening for changes again');
    this.failures = 0;
    this.isListening = true;
    this.scheduleHeartbeat(client, FIRST_CHECK_MS);
    this.tell();
  }

  private scheduleHeartbeat(client: Client, delayMs = HEARTBEAT_MS): void {
    this.heartbeat = setTimeout(() => {
      const late = setTimeout(() => this.dropped(new Error('the heartbeat got no answer'), client), HEARTBEAT_TIMEOUT_MS);
      const check = `SELECT pg_backend_pid() AS pid, '${CHANGE_SIGNAL_CHANNEL}' IN (SELECT pg_listening_channels()) AS listening`;
      client.query<{ pid: number; listening: boolean }>(check).then(
        ({ rows: [session] }) => {
          clearTimeout(late);
          if (session.pid !== this.backend || !session.listening) return this.stopListening(client);
          if (this.client === client) this.scheduleHeartbeat(client);
        },
        (error: Error) => {
          clearTimeout(late);
          this.dropped(error, client);
        },
      );
    }, delayMs).unref();
  }

  /** DATABASE_URL is a transaction pooler, and no DATABASE_DIRECT_URL was given: polling from now on. */
  private stopListening(client: Client): void {
    if (this.client !== client) return;
    this.pooled = true;
    this.logger.warn('the database URL is a pooler (statements reach other sessions): changes are polled; set DATABASE_DIRECT_URL to listen');
    this.dropped(new Error('a pooler'), client);
  }

  /** Back to polling at once; listening again after a backoff (never through a pooler). */
  private dropped(error: Error, client: Client): void {
    if (this.stopped || client !== this.client) return;
    this.client = null;
    clearTimeout(this.heartbeat);
    client.removeAllListeners();
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    const wasListening = this.isListening;
    this.isListening = false;
    if (!this.pooled && (wasListening || this.failures === 0)) this.logger.warn(`not listening for changes, polling instead: ${error.message}`);
    const delayMs = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** Math.min(this.failures, 5));
    this.failures++;
    this.tell();
    if (!this.pooled) this.reconnect = setTimeout(() => void this.connect(), delayMs).unref();
  }

  /** The handlers of `channel`, or of every channel. */
  private tell(channel?: string): void {
    for (const [name, handlers] of this.handlers) if (channel === undefined || channel === name) for (const handler of handlers) handler();
  }
}
