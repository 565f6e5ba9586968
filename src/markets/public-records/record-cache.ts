import { LRUCache } from 'lru-cache';

/** Time and chance, given to the cache so that its tests control both. */
export interface CacheClock {
  now(): number;
  /** A number in [0, 1). */
  random(): number;
}

export const systemClock: CacheClock = { now: () => Date.now(), random: () => Math.random() };

interface Entry<V> {
  /** The cached value, or null for a tombstone: the key changed at `version`. */
  value: V | null;
  version: number;
  expiresAt: number;
  /** From then on, a hit asks for a reload ahead of expiry (once). */
  reloadAt: number;
}

/** How much the cache holds: entries, and bytes by `sizeOf` (a value's estimated memory). */
export interface CacheLimits<V> {
  maxEntries: number;
  maxBytes: number;
  sizeOf(value: V): number;
}

/** Taken when a read starts; its result may be stored only if nothing changed since. */
export interface ReadTicket {
  version: number;
  generation: number;
}

// Never serves a value older than the last change it was told of: `evict` tombstones with a new version and `clear`
// starts a generation, so reads begun before cannot store. Lifetimes are random in [TTL/2, TTL] so records cached
// together do not expire together.
export class RecordCache<V extends {}> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private version = 0;
  private generation = 0;
  /** The newest tombstone dropped to make room, so that a read cannot mistake its key for unchanged. */
  private droppedTombstone = 0;

  constructor(
    private readonly ttlMs: number,
    limits: CacheLimits<V>,
    private readonly clock: CacheClock = systemClock,
  ) {
    this.entries = new LRUCache<string, Entry<V>>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      // Its key counts too (two bytes a character: a slug may be 256 emoji); a tombstone is little more.
      sizeCalculation: (entry, key) => 2 * key.length + (entry.value === null ? 1 : Math.max(1, limits.sizeOf(entry.value))),
      // A tombstone pushed out still refuses reads older than it.
      dispose: (entry, _key, reason) => {
        if (reason === 'evict' && entry.value === null) this.droppedTombstone = Math.max(this.droppedTombstone, entry.version);
      },
    });
  }

  /** The value to serve for `key`, and whether the caller should reload it ahead of its expiry. */
  lookup(key: string): { value: V; reloadAhead: boolean } | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.value === null) return undefined;
    const now = this.clock.now();
    if (entry.expiresAt <= now) return undefined;
    const reloadAhead = entry.reloadAt <= now;
    if (reloadAhead) entry.reloadAt = Infinity; // one reload; should it fail, the value expires as it would have
    return { value: entry.value, reloadAhead };
  }

  startRead(): ReadTicket {
    return { version: this.version, generation: this.generation };
  }

  /** Stores what a read begun at `ticket` got, unless `key` changed or the cache was cleared since. */
  store(key: string, value: V, ticket: ReadTicket): boolean {
    if (ticket.generation !== this.generation) return false;
    const current = this.entries.peek(key);
    const changedSince = current === undefined ? this.droppedTombstone > ticket.version : current.version > ticket.version;
    if (changedSince) return false;
    const now = this.clock.now();
    const lifetime = this.ttlMs - Math.floor(this.clock.random() * (this.ttlMs / 2));
    this.put(key, { value, version: ticket.version, expiresAt: now + lifetime, reloadAt: now + Math.floor(lifetime * 0.75) });
    return true;
  }

  /** `key` changed: forget it, and refuse what reads started before now would store. */
  evict(key: string): void {
    this.put(key, { value: null, version: ++this.version, expiresAt: 0, reloadAt: 0 });
  }

  /** Forget everything (changes may have gone unheard): reads under way will not store either. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** The bytes the entries are counted as (`sizeOf`). */
  get bytes(): number {
    return this.entries.calculatedSize;
  }

  private put(key: string, entry: Entry<V>): void {
    this.entries.delete(key); // replaced, not evicted: no dispose as an eviction
    this.entries.set(key, entry);
  }
}
