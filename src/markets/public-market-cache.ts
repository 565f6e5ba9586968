import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import pg from 'pg';
import type { Counter } from 'prom-client';
import type { EntityManager } from 'typeorm';
import type { Environment } from '../config/environment';
import { DATABASE_LOCATION, type DatabaseLocation } from '../database/database.module';
import { MetricsService } from '../observability/metrics.service';
import type { JsonText } from '../common/json-text';

export const MARKET_CHANGED_CHANNEL = 'market_changed';
export const LISTENER_APPLICATION_NAME = 'settlement-oracle-cache-listener';

const RECONNECT_DELAY_MS = [250, 500, 1000, 2000];
/** How long a writer waits to hear its own change announced before answering anyway. */
const ANNOUNCEMENT_WAIT_MS = 250;
const HEARD_TRANSACTIONS_KEPT = 4096;

interface Entry {
  /** The cached answer, serialized, or null for a tombstone: the key changed at `version`. */
  data: JsonText | null;
  version: number;
  expiresAt: number;
  /** From then on, a hit also reloads the record in the background (refresh-ahead). */
  refreshAt: number;
}

/**
 * The public records partners poll, cached per (source, slug) in this instance.
 *
 * Never stale after a write, on any instance:
 * - every change is announced by the database on commit (migration PublicMarketChanges) and
 *   each instance evicts on it; the writing instance also evicts at once after its commit;
 * - a read that began before an eviction of its key does not store what it read (tombstones
 *   carry the version of the eviction);
 * - while the announcements cannot be heard (listener down, database gone), nothing is served
 *   from or stored in the cache, and it is emptied when listening resumes;
 * - every entry expires after PUBLIC_CACHE_TTL_MS regardless (sooner, at random, down to half).
 * Concurrent misses of one key share one database read.
 */
@Injectable()
export class PublicMarketCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PublicMarketCache.name);
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly entries = new Map<string, Entry>();
  private readonly reads = new Map<string, Promise<JsonText>>();
  /** Bumped by every eviction; a tombstone holds the value of its own. */
  private version = 0;
  /** The newest tombstone dropped to make room, so a read cannot mistake its key for unchanged. */
  private droppedTombstone = 0;
  /** Bumped whenever the cache is emptied because changes may have gone unheard. */
  private epoch = 0;
  private listener: pg.Client | null = null;
  private listening = false;
  private reconnects = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  /** Writers waiting to hear their transaction's announcement, by transaction id. */
  private readonly awaitingAnnouncement = new Map<string, () => void>();
  /** The latest transactions heard of: an announcement can arrive before its writer waits. */
  private readonly heardTransactions = new Set<string>();
  private closed = false;
  private readonly hits: Counter.Internal;
  private readonly misses: Counter.Internal;
  private readonly bypasses: Counter.Internal;
  private readonly reloads: Counter<'result'>;

  constructor(
    config: ConfigService<Environment, true>,
    @Inject(DATABASE_LOCATION) private readonly location: DatabaseLocation,
    metrics: MetricsService,
  ) {
    this.ttlMs = config.get('PUBLIC_CACHE_TTL_MS', { infer: true });
    this.maxEntries = config.get('PUBLIC_CACHE_MAX_ENTRIES', { infer: true });
    this.hits = metrics.publicCache.labels({ result: 'hit' });
    this.misses = metrics.publicCache.labels({ result: 'miss' });
    this.bypasses = metrics.publicCache.labels({ result: 'bypass' });
    this.reloads = metrics.publicCacheReloads;
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** Whether cached records may be served now (the change announcements are being heard). */
  get serving(): boolean {
    return this.enabled && this.listening;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.enabled) await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.stopServing();
    await this.listener?.end().catch(() => undefined);
  }

  /** The cached answer for (source, slug), or `load()`'s, stored when that is safe. */
  async get(source: string, slug: string, load: () => Promise<JsonText>): Promise<JsonText> {
    if (!this.serving) {
      this.bypasses.inc();
      return load();
    }
    const cached = this.peek(source, slug, load);
    if (cached) return cached;
    this.misses.inc();
    const key = keyOf(source, slug);
    return this.reads.get(key) ?? this.sharedRead(key, load);
  }

  /**
   * The cached answer for (source, slug) when one may be served now, to serve it: counted as
   * a hit, and in the last quarter of the record's life a reload with `load` starts in the
   * background (once), so that a record partners keep polling is replaced before it expires
   * instead of missing. Undefined otherwise (not counted: the caller goes on to `get`). Never
   * waits for the database.
   */
  peek(source: string, slug: string, load: () => Promise<JsonText>): JsonText | undefined {
    const key = keyOf(source, slug);
    const entry = this.servable(key);
    if (!entry) return undefined;
    if (entry.refreshAt <= Date.now() && !this.reads.has(key)) {
      entry.refreshAt = Infinity; // one attempt: if it fails, the record expires as it would have
      this.sharedRead(key, load).then(
        () => this.reloads.inc({ result: 'ok' }),
        () => this.reloads.inc({ result: 'failed' }),
      );
    }
    this.hits.inc();
    return entry.data;
  }

  /** Whether `peek` would serve (source, slug) now; counts nothing, starts nothing. */
  has(source: string, slug: string): boolean {
    return this.servable(keyOf(source, slug)) !== undefined;
  }

  private servable(key: string): (Entry & { data: JsonText }) | undefined {
    if (!this.serving) return undefined;
    const entry = this.entries.get(key);
    if (!entry?.data || entry.expiresAt <= Date.now()) return undefined;
    return entry as Entry & { data: JsonText };
  }

  /**
   * Inside a transaction that changes the public record of (source, slug): returns what to
   * await once the transaction has committed (see afterWrite).
   */
  async afterCommit(manager: EntityManager, source: string, slug: string): Promise<() => Promise<void>> {
    if (!this.serving) return async () => this.evict(source, slug);
    const [{ txid }] = (await manager.query('SELECT txid_current()::text AS txid')) as { txid: string }[];
    return () => this.afterWrite(txid, source, slug);
  }

  /**
   * After transaction `txid` committed a change to (source, slug): evicts the record here and
   * waits (at most ANNOUNCEMENT_WAIT_MS) until this instance has heard the database announce
   * that transaction, which every instance hears at about the same moment. A partner told
   * "done" by one instance then reads the new record there at once, and on the others as soon
   * as they hear it (milliseconds).
   */
  async afterWrite(txid: string, source: string, slug: string): Promise<void> {
    this.evict(source, slug);
    if (!this.serving || this.heardTransactions.has(txid)) return;
    await new Promise<void>((heard) => {
      const timeout = setTimeout(heard, ANNOUNCEMENT_WAIT_MS);
      this.awaitingAnnouncement.set(txid, () => {
        clearTimeout(timeout);
        heard();
      });
    });
    this.awaitingAnnouncement.delete(txid);
  }

  /** Forget (source, slug) here, now; reads already under way will not store their result. */
  evict(source: string, slug: string): void {
    if (!this.enabled) return;
    const key = keyOf(source, slug);
    this.reads.delete(key);
    this.store(key, { data: null, version: ++this.version, expiresAt: 0, refreshAt: 0 });
  }

  /** Reads the key through, with concurrent reads of it waiting for this one. */
  private sharedRead(key: string, load: () => Promise<JsonText>): Promise<JsonText> {
    const read: Promise<JsonText> = this.readThrough(key, load).finally(() => {
      if (this.reads.get(key) === read) this.reads.delete(key); // an eviction may have replaced it
    });
    this.reads.set(key, read);
    return read;
  }

  private async readThrough(key: string, load: () => Promise<JsonText>): Promise<JsonText> {
    const startedAt = this.version;
    const epoch = this.epoch;
    const data = await load();
    const current = this.entries.get(key);
    const evictedSince = current === undefined ? this.droppedTombstone > startedAt : current.version > startedAt;
    if (this.serving && this.epoch === epoch && !evictedSince) {
      const now = Date.now();
      const lifetime = this.lifetime();
      this.store(key, { data, version: startedAt, expiresAt: now + lifetime, refreshAt: now + Math.floor(lifetime * 0.75) });
    }
    return data;
  }

  /**
   * Between half the TTL and the TTL, at random: records cached together (a partner's batch,
   * a restart) would otherwise expire together, and their misses queue on the pool at once:
   * that burst, every TTL, was the public read's p99 (docs/benchmarks.md).
   */
  private lifetime(): number {
    return this.ttlMs - Math.floor(Math.random() * (this.ttlMs / 2));
  }

  private store(key: string, entry: Entry): void {
    this.entries.delete(key); // re-inserted last: Map order is the eviction order
    this.entries.set(key, entry);
    if (this.entries.size <= this.maxEntries) return;
    const [oldestKey, oldest] = this.entries.entries().next().value!;
    if (oldest.data === null) this.droppedTombstone = Math.max(this.droppedTombstone, oldest.version);
    this.entries.delete(oldestKey);
  }

  /** Serving stops and everything cached is dropped: changes may go unheard from now on. */
  private stopServing(): void {
    this.listening = false;
    this.epoch++;
    this.entries.clear();
    this.reads.clear();
    for (const heard of this.awaitingAnnouncement.values()) heard();
    this.awaitingAnnouncement.clear();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.location.url,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 2000,
    });
    client.on('notification', (message) => this.onNotification(message.payload));
    client.on('error', (error) => this.onListenerLost(client, error));
    client.on('end', () => this.onListenerLost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${MARKET_CHANGED_CHANNEL}`);
    } catch (error) {
      this.onListenerLost(client, error as Error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    // Whatever changed while we were not listening is unknown: start empty.
    this.stopServing();
    this.listening = true;
    if (this.reconnects > 0) this.logger.log('public record cache: listening for changes again');
    this.reconnects = 0;
  }

  private onNotification(payload: string | undefined): void {
    try {
      const { source, slug, txid } = JSON.parse(payload ?? '') as { source: string; slug: string; txid: string };
      this.evict(source, slug);
      if (typeof txid !== 'string') return;
      this.heardTransactions.add(txid);
      if (this.heardTransactions.size > HEARD_TRANSACTIONS_KEPT) {
        this.heardTransactions.delete(this.heardTransactions.values().next().value!);
      }
      this.awaitingAnnouncement.get(txid)?.();
    } catch {
      this.stopServing(); // an announcement we cannot read: drop everything rather than guess
      this.listening = true;
    }
  }

  private onListenerLost(client: pg.Client, error?: Error): void {
    if (this.listener !== null && this.listener !== client) return;
    this.listener = null;
    this.stopServing();
    client.removeAllListeners('end');
    client.on('error', () => undefined);
    client.end().catch(() => undefined);
    if (this.closed || this.reconnectTimer !== undefined) return;
    const delay = RECONNECT_DELAY_MS[Math.min(this.reconnects++, RECONNECT_DELAY_MS.length - 1)];
    if (this.reconnects === 1) this.logger.warn(`public record cache off until the database is back: ${error?.message ?? 'listener closed'}`);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.listen();
    }, delay);
  }
}

function keyOf(source: string, slug: string): string {
  return `${source}\u0000${slug}`;
}
