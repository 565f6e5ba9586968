import { JsonText } from '../../common/json-text';
import { type CacheClock, type CacheLimits, type ReadTicket, RecordCache, systemClock } from './record-cache';

/** get_public_market's `data` for an unknown market: one value, which the cache keeps apart. */
export const NO_PUBLIC_RECORD = JsonText.of({ markets: [] });

/** The answers for unknown markets take at most this share of the entries and bytes allowed. */
const UNKNOWN_SHARE = 5;

/** A read's tickets, one per part of the cache. */
export interface ReadTickets {
  found: ReadTicket;
  unknown: ReadTicket;
}

/** Unknown markets' answers are kept apart, in a fifth of the room: a client sweeping guesses evicts only its own misses, never the records partners poll. */
export class PublicRecordCache {
  private readonly found: RecordCache<JsonText>;
  private readonly unknown: RecordCache<JsonText>;

  constructor(ttlMs: number, limits: CacheLimits<JsonText>, clock: CacheClock = systemClock) {
    this.found = new RecordCache(ttlMs, limits, clock);
    this.unknown = new RecordCache(
      ttlMs,
      {
        maxEntries: Math.max(1, Math.floor(limits.maxEntries / UNKNOWN_SHARE)),
        maxBytes: Math.max(1, Math.floor(limits.maxBytes / UNKNOWN_SHARE)),
        sizeOf: limits.sizeOf,
      },
      clock,
    );
  }

  lookup(key: string): { value: JsonText; reloadAhead: boolean } | undefined {
    return this.found.lookup(key) ?? this.unknown.lookup(key);
  }

  startRead(): ReadTickets {
    return { found: this.found.startRead(), unknown: this.unknown.startRead() };
  }

  /** Stores what a read got in the part it belongs to, unless `key` changed since the read began. */
  store(key: string, value: JsonText, tickets: ReadTickets): boolean {
    return value === NO_PUBLIC_RECORD ? this.unknown.store(key, value, tickets.unknown) : this.found.store(key, value, tickets.found);
  }

  evict(key: string): void {
    this.found.evict(key);
    this.unknown.evict(key);
  }

  clear(): void {
    this.found.clear();
    this.unknown.clear();
  }

  /** The records of existing markets held, and their bytes (what PUBLIC_CACHE_MAX_* bound). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.found.size, bytes: this.found.bytes };
  }
}
