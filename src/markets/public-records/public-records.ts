import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Counter } from 'prom-client';
import type { EntityManager } from 'typeorm';
import type { JsonText } from '../../common/json-text';
import type { Environment } from '../../config/environment';
import { statement, Sql } from '../../database/sql';
import { MetricsService } from '../../observability/metrics.service';
import { type ChangeListener, MarketChangeFeed } from './change-feed';
import { PublicRecordCache } from './public-record-cache';
import { WriteAnnouncements } from './write-announcements';

/** How long a writer waits to hear its own change announced before answering anyway. */
const ANNOUNCEMENT_WAIT_MS = 250;

const TRANSACTION_ID = statement<{ txid: string }>('SELECT txid_current()::text AS txid');

const keyOf = (source: string, slug: string) => `${source}\u0000${slug}`;

/**
 * The memory a cached record takes, estimated: its JSON at two bytes a character (V8 keeps text
 * outside Latin-1 so; Latin-1 text takes half), and its entry (RecordCache adds its key). The
 * answers for unknown markets are one shared value: only their entries and keys take memory.
 */
const CACHED_BYTES = (record: JsonText) => 2 * record.json.length + 256;

/**
 * The public records partners poll, served from this instance's cache while the change feed
 * hears every change (docs/architecture.md states the guarantee), straight from the database
 * otherwise. Concurrent misses of one record share one database read; a record still polled in
 * the last quarter of its life is reloaded in the background, so it is replaced before it expires.
 */
@Injectable()
export class PublicRecords implements ChangeListener, OnApplicationBootstrap {
  private readonly cache: PublicRecordCache | null;
  private readonly reads = new Map<string, Promise<JsonText>>();
  private readonly announcements = new WriteAnnouncements();
  private readonly lookups: Record<'hit' | 'miss' | 'bypass', Counter.Internal>;

  constructor(
    config: ConfigService<Environment, true>,
    private readonly feed: MarketChangeFeed,
    private readonly sql: Sql,
    private readonly metrics: MetricsService,
  ) {
    const ttlMs = config.get('PUBLIC_CACHE_TTL_MS', { infer: true });
    const limits = {
      maxEntries: config.get('PUBLIC_CACHE_MAX_ENTRIES', { infer: true }),
      maxBytes: config.get('PUBLIC_CACHE_MAX_BYTES', { infer: true }),
      sizeOf: CACHED_BYTES,
    };
    const cache = (this.cache = ttlMs > 0 ? new PublicRecordCache(ttlMs, limits) : null);
    if (cache) metrics.measurePublicCache(() => cache.size);
    const lookups = metrics.publicCache;
    this.lookups = { hit: lookups.labels({ result: 'hit' }), miss: lookups.labels({ result: 'miss' }), bypass: lookups.labels({ result: 'bypass' }) };
    feed.subscribe(this);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.cache) await this.feed.start();
  }

  /** The record of (source, slug): cached, or `load()`'s (stored when that is safe). */
  async get(source: string, slug: string, load: () => Promise<JsonText>): Promise<JsonText> {
    if (!this.cache || !this.feed.live) {
      this.lookups.bypass.inc();
      return load();
    }
    const key = keyOf(source, slug);
    const cached = this.cache.lookup(key);
    if (cached) {
      this.lookups.hit.inc();
      if (cached.reloadAhead && !this.reads.has(key)) {
        this.sharedRead(key, load).then(
          () => this.metrics.publicCacheReloads.inc({ result: 'ok' }),
          () => this.metrics.publicCacheReloads.inc({ result: 'failed' }),
        );
      }
      return cached.value;
    }
    this.lookups.miss.inc();
    return this.reads.get(key) ?? this.sharedRead(key, load);
  }

  /**
   * Inside a transaction that changes (source, slug)'s public record: what to await once it has
   * committed, before answering. The record is evicted here at once, and the answer waits (at most
   * ANNOUNCEMENT_WAIT_MS) until this instance has heard the database announce the transaction,
   * which every instance is sent at the same moment: the writer reads its change back at once.
   */
  async afterCommit(manager: EntityManager, source: string, slug: string): Promise<() => Promise<void>> {
    if (!this.cache || !this.feed.live) return async () => this.forget(source, slug);
    const [{ txid }] = await this.sql.rows(TRANSACTION_ID, [], manager);
    return () => this.written(txid, source, slug);
  }

  /** Transaction `txid`, committed, changed (source, slug): evicts it, then waits to hear the announcement. */
  async written(txid: string, source: string, slug: string): Promise<void> {
    this.forget(source, slug);
    if (this.feed.live) await this.announcements.waitFor(txid, ANNOUNCEMENT_WAIT_MS);
  }

  changed(source: string, slug: string, txid: string | undefined): void {
    this.forget(source, slug);
    if (txid !== undefined) this.announcements.heard(txid);
  }

  deaf(): void {
    this.cache?.clear();
    this.reads.clear();
    this.announcements.releaseAll();
  }

  live(): void {
    this.cache?.clear();
    this.reads.clear();
  }

  private forget(source: string, slug: string): void {
    const key = keyOf(source, slug);
    this.cache?.evict(key);
    this.reads.delete(key);
  }

  /** Reads the record through, concurrent readers of it waiting for this one. */
  private sharedRead(key: string, load: () => Promise<JsonText>): Promise<JsonText> {
    const ticket = this.cache!.startRead();
    const read: Promise<JsonText> = load()
      .then((value) => {
        if (this.feed.live) this.cache!.store(key, value, ticket);
        return value;
      })
      .finally(() => {
        if (this.reads.get(key) === read) this.reads.delete(key);
      });
    this.reads.set(key, read);
    return read;
  }
}
