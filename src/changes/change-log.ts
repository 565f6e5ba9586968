import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { changesConfig, type ChangesConfig } from '../config/configuration';
import { ReadReplicas } from '../database/read-replicas';
import type { Transaction } from '../database/sql';
import { MetricsService } from '../observability/metrics.service';
import type { ChangeType, LoggedChange, PolledChanges } from './change-event';
import { ChangeLogRepository } from './change-log.repository';
import type { MarketKey } from './revealed-change';

const POLL_LIMIT = 1_000;
/** A poll asks for events after this to learn only the head. */
const AFTER_EVERYTHING = '9223372036854775807';
/** Sources whose last sequence is remembered for long polls. */
const SOURCES_REMEMBERED = 10_000;
/** How often events past CHANGES_RETENTION_DAYS are deleted, and how many a statement deletes. */
const RETENTION_INTERVAL_MS = 60 * 60_000;
const RETENTION_BATCH = 10_000;
/** How often a write waiting for the other instances to read its event asks how far they are. */
const READERS_CHECK_MS = 5;
/** How soon a write polls again while its event waits for its sequence. */
const SEQUENCER_RETRY_MS = 2;
/** How soon the next poll comes after one that read events or saw some waiting for their sequence: writes elsewhere wait for this instance to read theirs. */
const ACTIVE_POLL_MS = 5;
/** How often a poll also says, in change_log_readers, that this instance reads (the other polls only read); at most a quarter of CHANGES_DEAF_AFTER_MS. */
const READER_NOTE_EVERY_MS = 250;

/** Told what the change log says, in sequence order. */
export interface ChangeListener {
  /** (source, slug)'s public record changed. */
  changed(source: string, slug: string): void;
  /** A poll failed: changes may go unseen until one succeeds. */
  unreadable?(): void;
}

/** Polls every CHANGES_POLL_INTERVAL_MS (every ACTIVE_POLL_MS while events come) and tells listeners every event in order, from a cursor, so none is missed across failures (docs/architecture.md). */
@Injectable()
export class ChangeLog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeLog');
  private readonly listeners: ChangeListener[] = [];
  private readonly intervalMs: number;
  private readonly deafAfterMs: number;
  private readonly lastSequenceOf = new LRUCache<string, bigint>({ max: SOURCES_REMEMBERED });
  /** This instance's name among the log's readers (change_log_readers). */
  private readonly reader = randomUUID();
  private waiting: { sequence: bigint; started: number; done: () => void }[] = [];
  private watchingReaders = false;
  private cursor: string | null = null;
  private lastPolledAt = Number.NEGATIVE_INFINITY;
  private pending: { id: string; since: number } | null = null;
  private isLive = false;
  /** The last poll read events or saw some pending: the log is busy. */
  private active = false;
  private timer: NodeJS.Timeout | undefined;
  private retention: NodeJS.Timeout | undefined;
  private readonly retentionDays: number;
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private stopped = false;

  constructor(
    @Inject(changesConfig.KEY) config: ChangesConfig,
    private readonly repository: ChangeLogRepository,
    private readonly metrics: MetricsService,
    private readonly replicas: ReadReplicas,
  ) {
    this.intervalMs = config.pollIntervalMs;
    this.deafAfterMs = config.deafAfterMs;
    this.retentionDays = config.retentionDays;
    metrics.measureChangeLog(() => ({ live: this.live, ageMs: performance.now() - this.lastPolledAt, cursor: Number(this.cursor ?? 0) }));
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** The last poll succeeded within CHANGES_DEAF_AFTER_MS and no event waited longer for its sequence (a long transaction holds the log back); not live, the public record cache is bypassed. */
  get live(): boolean {
    const now = performance.now();
    return this.isLive && now - this.lastPolledAt <= this.deafAfterMs && this.pendingWaitMs(now) <= this.deafAfterMs;
  }

  /** The last sequence read of `source`'s events, if remembered. */
  lastSequence(source: string): bigint | undefined {
    return this.lastSequenceOf.get(source);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.poll().catch(() => undefined);
    this.schedule();
    this.retention = setInterval(() => void this.deleteExpired(), RETENTION_INTERVAL_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.retention);
    // Writers elsewhere stop waiting for this instance at once, rather than CHANGES_DEAF_AFTER_MS later.
    await this.repository.forgetReader(this.reader).catch(() => undefined);
  }

  /** Events older than CHANGES_RETENTION_DAYS, deleted a batch at a time (by one instance at a time). */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    try {
      for (let batch = RETENTION_BATCH; batch === RETENTION_BATCH; deleted += batch) {
        batch = await this.repository.deleteExpired(this.retentionDays, RETENTION_BATCH);
      }
    } catch (error) {
      this.logger.warn(`deleting events past their retention failed (tried again within the hour): ${(error as Error).message}`);
    }
    return deleted;
  }

  /** In `tx`: the event of a change to market `marketId`; its id. */
  append(tx: Transaction, type: ChangeType, marketId: string): Promise<string> {
    return this.repository.append(tx, type, marketId);
  }

  /** Before an answer that reveals a committed change to `market` (a replayed filing, 4091, 4092): as written() for the newest event committed now, which is that change's or later. */
  async acknowledge(market: MarketKey): Promise<void> {
    const eventId = await this.repository.newestEventId();
    if (eventId !== null) await this.written(market.source, market.slug, eventId);
  }

  /** After `eventId`'s transaction committed, before answering: polls until it is sequenced, then waits until every other live instance has read it. */
  async written(source: string, slug: string, eventId: string): Promise<void> {
    for (const listener of this.listeners) listener.changed(source, slug);
    // Another instance's poll may hold the sequencer, or an older transaction still run (CHANGES_DEAF_AFTER_MS at most).
    const committed = performance.now();
    for (;;) {
      const polled = await this.pollSoon().then(() => true, () => false);
      const sequenced = this.pending === null || BigInt(this.pending.id) > BigInt(eventId);
      if (!polled || sequenced || performance.now() - committed >= this.deafAfterMs || this.stopped) break;
      await sleep(SEQUENCER_RETRY_MS);
    }
    if (this.cursor !== null) await this.othersRead(BigInt(this.cursor));
  }

  /** Once every other instance that polled within CHANGES_DEAF_AFTER_MS has read up to `sequence`. */
  private othersRead(sequence: bigint): Promise<void> {
    return new Promise((done) => {
      this.waiting.push({ sequence, started: performance.now(), done });
      if (!this.watchingReaders) void this.watchReaders();
    });
  }

  /** One loop for all waiting writes; never longer than CHANGES_DEAF_AFTER_MS (a silent reader is no longer live), and a failed check answers them: they committed. */
  private async watchReaders(): Promise<void> {
    this.watchingReaders = true;
    try {
      while (this.waiting.length > 0) {
        let slowest: bigint | null | undefined;
        try {
          const cursor = await this.repository.slowestOtherReader(this.reader, this.deafAfterMs);
          slowest = cursor === null ? null : BigInt(cursor);
        } catch {
          slowest = undefined;
        }
        const now = performance.now();
        this.waiting = this.waiting.filter((write) => {
          const result = slowest === undefined ? 'unknown' : slowest === null || slowest >= write.sequence ? 'read' : now - write.started > this.deafAfterMs ? 'timeout' : null;
          if (result === null) return true;
          this.metrics.changeLogAckWaits.observe({ result }, (now - write.started) / 1000);
          write.done();
          return false;
        });
        if (this.waiting.length > 0) await sleep(READERS_CHECK_MS);
      }
    } finally {
      this.watchingReaders = false;
    }
  }

  /** A poll that starts after this call (one in progress may have begun before a commit it must see). */
  pollSoon(): Promise<void> {
    if (!this.running) return (this.running = this.poll().finally(() => (this.running = null)));
    this.next ??= this.running.catch(() => undefined).then(() => {
      this.next = null;
      return this.pollSoon();
    });
    return this.next;
  }

  private schedule(): void {
    if (this.stopped) return;
    const delayMs = this.active ? Math.min(ACTIVE_POLL_MS, this.intervalMs) : this.intervalMs;
    this.timer = setTimeout(() => void this.pollSoon().catch(() => undefined).finally(() => this.schedule()), delayMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    // Live is counted from before the last poll that said so in change_log_readers: writers on other
    // instances judge this one by the database's time of that poll, which is later.
    const started = performance.now();
    const noting = started - this.lastPolledAt >= Math.min(READER_NOTE_EVERY_MS, this.deafAfterMs / 4);
    const before = this.cursor;
    try {
      for (;;) {
        const applied = this.cursor;
        const polled = await this.repository.poll(noting ? this.reader : null, applied, this.cursor ?? AFTER_EVERYTHING, this.cursor === null ? 0 : POLL_LIMIT);
        this.cursor ??= polled.head;
        this.replicas.notePrimary(polled.lsn);
        for (const event of polled.events) this.read(event);
        this.notePending(polled, started);
        // Its writer is answered in at most the other half: replica reads must include its commit by then.
        if (this.pendingWaitMs(started) >= this.deafAfterMs / 2) this.replicas.require(polled.lsn);
        if (polled.events.length < POLL_LIMIT) break;
      }
      if (this.cursor !== null && this.cursor !== before) await this.repository.noteRead(this.reader, this.cursor).catch(() => undefined);
      if (noting) this.lastPolledAt = started;
      const heldBack = this.pendingWaitMs() > this.deafAfterMs;
      this.active = this.cursor !== before || (this.pending !== null && !heldBack);
      this.setLive(!heldBack);
    } catch (error) {
      this.metrics.changeLogPollFailures.inc();
      this.active = false;
      // Changes may be missed from now on: the cache is bypassed until a poll succeeds.
      if (this.isLive) this.logger.warn(`reading the change log failed, the public record cache is bypassed: ${(error as Error).message}`);
      this.isLive = false;
      for (const listener of this.listeners) listener.unreadable?.();
      throw error;
    }
  }

  private read(event: LoggedChange): void {
    this.cursor = event.sequence;
    this.replicas.require(event.lsn);
    this.lastSequenceOf.set(event.source, BigInt(event.sequence));
    for (const listener of this.listeners) listener.changed(event.source, event.slug);
  }

  // Counted from the waiting transaction's start, as of this poll's start: never later than a writer's commit, so this
  // instance bypasses its cache before that writer, waiting CHANGES_DEAF_AFTER_MS from its commit, is answered.
  private notePending({ oldest_pending: oldest, pending_for_ms: waitedMs }: PolledChanges, pollStarted: number): void {
    if (oldest === null) this.pending = null;
    else if (typeof waitedMs === 'number') this.pending = { id: oldest, since: pollStarted - waitedMs };
    // The previous release's change_log_poll (re-applied by one of its instances starting): from the first poll that saw it.
    else if (this.pending?.id !== oldest) this.pending = { id: oldest, since: pollStarted };
  }

  /** How long the longest-waiting event has waited for its sequence at `now`; 0 when none waits. */
  private pendingWaitMs(now = performance.now()): number {
    return this.pending === null ? 0 : now - this.pending.since;
  }

  private setLive(live: boolean): void {
    if (live === this.isLive) return;
    this.isLive = live;
    if (!live) this.logger.warn(`changes may be late (an event has waited over ${this.deafAfterMs} ms for its sequence): the public record cache is bypassed`);
  }
}
