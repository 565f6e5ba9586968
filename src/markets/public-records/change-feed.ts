import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { DATABASE_LOCATION, type DatabaseLocation } from '../../database/database.module';
import { MetricsService } from '../../observability/metrics.service';

export const MARKET_CHANGED_CHANNEL = 'market_changed';
export const LISTENER_APPLICATION_NAME = 'settlement-oracle-change-feed';

/** Every this often the feed announces a heartbeat on its own connection... */
export const HEARTBEAT_INTERVAL_MS = 2000;
/** ...and when none has been heard for this long, it is deaf: a frozen or half-open connection. */
export const HEARTBEAT_TIMEOUT_MS = 5000;
const CHECK_INTERVAL_MS = 1000;
/** A check this much later than due finds this process stalled, not the connection silent. */
const CHECK_LATE_MS = 1000;
const RECONNECT_DELAY_MS = [250, 500, 1000, 2000];
const HEARTBEAT = JSON.stringify({ heartbeat: true });

/** Told what the feed hears. */
export interface ChangeListener {
  /** (source, slug)'s public record changed in transaction `txid` (committed). */
  changed(source: string, slug: string, txid: string | undefined): void;
  /** Changes may go unheard from now on, until `live`. */
  deaf(): void;
  /** The feed hears every change again, from now on (what happened meanwhile is unknown). */
  live(): void;
}

/**
 * The database's announcements of changes to public records (triggers NOTIFY on the
 * `market_changed` channel when the writing transaction commits, migration
 * PublicMarketChanges), heard on one LISTEN connection of this instance's own.
 *
 * The connection can fail loudly (closed, reset: it reconnects, with backoff) or silently (a
 * half-open connection, a frozen server process: nothing arrives, nothing errs). Against the
 * silent kind, the feed announces a heartbeat on the same connection every
 * HEARTBEAT_INTERVAL_MS and hears it back; when it has heard nothing for HEARTBEAT_TIMEOUT_MS it
 * declares itself deaf and reconnects. So a listener that stops hearing is known within
 * HEARTBEAT_TIMEOUT_MS + CHECK_INTERVAL_MS (6 s), plus however late this process's timers run.
 *
 * Late timers are not silence: under thousands of busy connections, one turn of Node's event
 * loop can read sockets for seconds before any timer runs, so no heartbeat is sent meanwhile
 * and none is heard. A check that runs late gives the heartbeat one more interval instead of
 * declaring the feed deaf (which would send every read to the database when the instance can
 * least afford it).
 */
@Injectable()
export class MarketChangeFeed implements OnApplicationShutdown {
  private readonly logger = new Logger('ChangeFeed');
  private readonly listeners: ChangeListener[] = [];
  private client: pg.Client | null = null;
  private isLive = false;
  private lastHeard = 0;
  private lastChecked = 0;
  private reconnects = 0;
  private timers: NodeJS.Timeout[] = [];
  private reconnectTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The connection whose heartbeat is unanswered yet: one at a time (pg queues the others). */
  private beatingOn: pg.Client | null = null;

  constructor(
    @Inject(DATABASE_LOCATION) private readonly location: DatabaseLocation,
    private readonly metrics: MetricsService,
  ) {}

  /** Whether every change is being heard now. */
  get live(): boolean {
    return this.isLive;
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** Starts listening (and beating); the first connection is awaited. */
  async start(): Promise<void> {
    this.timers = [
      setInterval(() => this.beat(), HEARTBEAT_INTERVAL_MS).unref(),
      setInterval(() => this.checkHearing(), CHECK_INTERVAL_MS).unref(),
    ];
    await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.setLive(false);
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.location.url,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 2000,
    });
    client.on('notification', (message) => this.onNotification(client, message.payload));
    client.on('error', (error) => this.lost(client, error.message));
    client.on('end', () => this.lost(client, 'connection closed'));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${MARKET_CHANGED_CHANNEL}`);
    } catch (error) {
      this.lost(client, (error as Error).message);
      return;
    }
    if (this.closed || this.client !== client) return void client.end().catch(() => undefined);
    this.lastHeard = Date.now();
    if (this.reconnects > 0) this.logger.log('hearing changes again');
    this.reconnects = 0;
    this.setLive(true);
  }

  private onNotification(client: pg.Client, payload: string | undefined): void {
    if (client !== this.client) return;
    this.lastHeard = Date.now();
    let message: { source?: unknown; slug?: unknown; txid?: unknown; heartbeat?: unknown };
    try {
      message = JSON.parse(payload ?? '') as typeof message;
    } catch {
      message = {};
    }
    if (message.heartbeat === true) return;
    if (typeof message.source !== 'string' || typeof message.slug !== 'string') {
      // An announcement this version cannot read: whatever it named, drop everything rather than guess.
      for (const listener of this.listeners) listener.live();
      return;
    }
    const txid = typeof message.txid === 'string' ? message.txid : undefined;
    for (const listener of this.listeners) listener.changed(message.source, message.slug, txid);
  }

  /** Notifies itself, once the connection listens and its last heartbeat was answered. */
  private beat(): void {
    const client = this.client;
    if (!client || !this.isLive || this.beatingOn === client) return;
    this.beatingOn = client;
    client
      .query('SELECT pg_notify($1, $2)', [MARKET_CHANGED_CHANNEL, HEARTBEAT])
      .catch(() => undefined)
      .finally(() => {
        if (this.beatingOn === client) this.beatingOn = null;
      });
  }

  private checkHearing(): void {
    const now = Date.now();
    const late = now - this.lastChecked > CHECK_INTERVAL_MS + CHECK_LATE_MS;
    this.lastChecked = now;
    if (late) return;
    if (!this.isLive || now - this.lastHeard <= HEARTBEAT_TIMEOUT_MS) return;
    this.metrics.changeFeedSilences.inc();
    this.lost(this.client!, `no heartbeat heard for ${HEARTBEAT_TIMEOUT_MS} ms`);
  }

  /** The connection failed (or went silent): deaf until a new one listens. */
  private lost(client: pg.Client, reason: string): void {
    if (client !== this.client) return;
    this.client = null;
    this.setLive(false);
    client.removeAllListeners('notification');
    client.removeAllListeners('end');
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined); // not awaited: a frozen connection may never finish closing
    if (this.closed || this.reconnectTimer !== undefined) return;
    const delay = RECONNECT_DELAY_MS[Math.min(this.reconnects++, RECONNECT_DELAY_MS.length - 1)];
    if (this.reconnects === 1) this.logger.warn(`public record cache bypassed until changes are heard again: ${reason}`);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.listen();
    }, delay);
  }

  private setLive(live: boolean): void {
    if (this.isLive === live) return;
    this.isLive = live;
    for (const listener of this.listeners) {
      if (live) listener.live();
      else listener.deaf();
    }
  }
}
