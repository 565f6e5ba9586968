import { Inject, Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { ChangeLog, type ChangeListener } from '../../changes/change-log';
import type { JsonText } from '../../common/json-text';
import { publicCacheConfig, type PublicCacheConfig } from '../../config/configuration';
import { MetricsService } from '../../observability/metrics.service';
import { PublicRecordCache } from './public-record-cache';

const keyOf = (source: string, slug: string) => `${source}\u0000${slug}`;

// Two bytes a character, as V8 keeps text outside Latin-1, plus the entry (RecordCache adds the key). The answers
// for unknown markets are one shared value: only their entries and keys take memory.
const CACHED_BYTES = (record: JsonText) => 2 * record.json.length + 256;

// Cached only while the change log is live (docs/architecture.md states the guarantee). Concurrent misses share one
// read; a record still polled in the last quarter of its life is reloaded in the background, before it expires.
@Injectable()
export class PublicRecords implements ChangeListener {
  private readonly cache: PublicRecordCache | null;
  private readonly reads = new Map<string, Promise<JsonText>>();
  private readonly lookups: Record<'hit' | 'miss' | 'bypass', Counter.Internal>;

  constructor(
    @Inject(publicCacheConfig.KEY) config: PublicCacheConfig,
    private readonly changes: ChangeLog,
    private readonly metrics: MetricsService,
  ) {
    const ttlMs = config.ttlMs;
    const limits = {
      maxEntries: config.maxEntries,
      maxBytes: config.maxBytes,
      sizeOf: CACHED_BYTES,
    };
    const cache = (this.cache = ttlMs > 0 ? new PublicRecordCache(ttlMs, limits) : null);
    if (cache) metrics.measurePublicCache(() => cache.size);
    const lookups = metrics.publicCache;
    this.lookups = { hit: lookups.labels({ result: 'hit' }), miss: lookups.labels({ result: 'miss' }), bypass: lookups.labels({ result: 'bypass' }) };
    changes.subscribe(this);
  }

  /** The record of (source, slug): cached, or `load()`'s (stored when that is safe). */
  get(source: string, slug: string, load: () => Promise<JsonText>): Promise<JsonText> {
    const usable = this.cache !== null && this.changes.cacheUsable();
    // Looked up at once when it can be: a read that begins now does not begin after a change read meanwhile.
    if (typeof usable === 'boolean') return usable ? this.lookup(source, slug, load) : this.bypass(load);
    return usable.then((ok) => (ok ? this.lookup(source, slug, load) : this.bypass(load)));
  }

  private bypass(load: () => Promise<JsonText>): Promise<JsonText> {
    this.lookups.bypass.inc();
    return load();
  }

  private async lookup(source: string, slug: string, load: () => Promise<JsonText>): Promise<JsonText> {
    const key = keyOf(source, slug);
    const cached = this.cache!.lookup(key);
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

  changed(source: string, slug: string): void {
    const key = keyOf(source, slug);
    this.cache?.evict(key);
    this.reads.delete(key);
  }

  /** Reads the record through, concurrent readers of it waiting for this one. */
  private sharedRead(key: string, load: () => Promise<JsonText>): Promise<JsonText> {
    const ticket = this.cache!.startRead();
    const read: Promise<JsonText> = load()
      .then((value) => {
        if (this.changes.live) this.cache!.store(key, value, ticket);
        return value;
      })
      .finally(() => {
        if (this.reads.get(key) === read) this.reads.delete(key);
      });
    this.reads.set(key, read);
    return read;
  }
}
