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
import { ChangeSignal } from './change-signal';
import { OtherReaders } from './other-readers';
import type { MarketKey } from './revealed-change';

const POLL_LIMIT = 1_000;
/** A poll asks for events after this to learn only the head. */
const AFTER_EVERYTHING = '9223372036854775807';
/** Sources whose last sequence is remembered for long polls. */
const SOURCES_REMEMBERED = 10_000;
/** How soon a write polls again while its event waits for its sequence. */
const SEQUENCER_RETRY_MS = 2;
/** How soon the next poll comes after one that read events or saw some waiting for their sequence: writes elsewhere wait for this instance to read theirs. */
const ACTIVE_POLL_MS = 5;
/** How often a poll also says, in change_log_readers, that this instance reads (the other polls only read); at most a quarter of CHANGES_DEAF_AFTER_MS. */
const READER_NOTE_EVERY_MS = 250;
/** How often an idle instance polls when it cannot hear the change signal: long polls and fan-out are that late at most. */
export const FALLBACK_POLL_MS = 1_000;

/** Told what the change log says, in sequence order. */
export interface ChangeListener {
  /** (source, slug)'s public record changed. */
  changed(source: string, slug: string): void;
  /** A poll failed: changes may go unseen until one succeeds. */
  unreadable?(): void;
}

/**
 * Tells listeners every event in order, from a cursor, so none is missed across failures (docs/architecture.md). Polls when
 * the change signal is heard, every ACTIVE_POLL_MS while events come, and while its cache is used, often enough to stay
 * among the log's live readers; idle, it rests, or polls every FALLBACK_POLL_MS when the signal cannot be heard.
 */
@Injectable()
export class ChangeLog implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ChangeLog');
  private readonly listeners: ChangeListener[] = [];
  private readonly intervalMs: number;
  private readonly deafAfterMs: number;
  private readonly lastSequenceOf = new LRUCache<string, bigint>({ max: SOURCES_REMEMBERED });
  /** This instance's name among the log's readers (change_log_readers). */
  private readonly reader = randomUUID();
  private readonly others: OtherReaders;
  private cursor: string | null = null;
  private lastPolledAt = Number.NEGATIVE_INFINITY;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  /** When the public record cache was last asked for: it needs this instance among the live readers. */
  private wantedAt = Number.NEGATIVE_INFINITY;
  private pending: { id: string; since: number } | null = null;
  private isLive = false;
  /** The last poll read events or saw some pending: the log is busy. */
  private active = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private stopped = false;

  constructor(
    @Inject(changesConfig.KEY) config: ChangesConfig,
    private readonly repository: ChangeLogRepository,
    private readonly metrics: MetricsService,
    private readonly replicas: ReadReplicas,
    private readonly signal: ChangeSignal,
  ) {
    this.intervalMs = config.pollIntervalMs;
    this.deafAfterMs = config.deafAfterMs;
    this.others = new OtherReaders(repository, metrics, this.reader, this.deafAfterMs);
    // Idle and listening, the log is live as far as operators care: the next read of the cache polls first.
    const live = () => this.live || (this.signal.listening && this.isLive);
    metrics.measureChangeLog(() => ({ live: live(), ageMs: performance.now() - this.lastReadAt, cursor: Number(this.cursor ?? 0) }));
    signal.subscribe(() => this.pollNow());
  }

  subscribe(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** The last poll succeeded within CHANGES_DEAF_AFTER_MS and no event waited longer for its sequence (a long transaction holds the log back); not live, the public record cache is bypassed. */
  get live(): boolean {
    const now = performance.now();
    return this.isLive && now - this.lastPolledAt <= this.deafAfterMs && this.pendingWaitMs(now) <= this.deafAfterMs;
  }

  /** Whether the public record cache may be used; asking keeps this instance among the live readers for CHANGES_DEAF_AFTER_MS (the first ask after a rest polls first). */
  cacheUsable(): boolean | Promise<boolean> {
    const wasWanted = this.wanted();
    this.wantedAt = performance.now();
    if (this.live || wasWanted || this.stopped) return this.live;
    return this.pollSoon()
      .then(() => this.live, () => false)
      .finally(() => this.schedule());
  }

  /** The last sequence read of `source`'s events, if remembered. */
  lastSequence(source: string): bigint | undefined {
    return this.lastSequenceOf.get(source);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.poll().catch(() => undefined);
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // Writers elsewhere stop waiting for this instance at once, rather than CHANGES_DEAF_AFTER_MS later.
    await this.repository.forgetReader(this.reader).catch(() => undefined);
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

  /** This instance's cursor once every other live instance has read that far too: events up to it may be told to clients (webhooks). */
  async readEverywhere(): Promise<bigint | null> {
    const cursor = this.cursor === null ? null : BigInt(this.cursor);
    if (cursor !== null) await this.others.read(cursor);
    return cursor;
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
    if (this.cursor !== null) await this.others.read(BigInt(this.cursor));
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

  /** A poll now, and the next ones timed from it (a long poll about to wait asks: events committed by hand get their sequence). */
  pollNow(): void {
    if (!this.stopped) void this.pollSoon().catch(() => undefined).finally(() => this.schedule());
  }

  private schedule(): void {
    clearTimeout(this.timer);
    const delayMs = this.stopped ? null : this.nextPollInMs();
    if (delayMs === null) return;
    this.timer = setTimeout(() => this.pollNow(), delayMs);
    this.timer.unref();
  }

  /** Null: none until the signal, a write or the cache asks. */
  private nextPollInMs(): number | null {
    if (this.active) return Math.min(ACTIVE_POLL_MS, this.intervalMs);
    if (this.signal.listening) return this.wanted() ? this.noteEveryMs() : null;
    return this.wanted() ? this.intervalMs : FALLBACK_POLL_MS;
  }

  private wanted(): boolean {
    return performance.now() - this.wantedAt <= this.deafAfterMs;
  }

  private noteEveryMs(): number {
    return Math.min(READER_NOTE_EVERY_MS, this.deafAfterMs / 4);
  }

  private async poll(): Promise<void> {
    // Live is counted from before the last poll that said so in change_log_readers: writers on other
    // instances judge this one by the database's time of that poll, which is later.
    const started = performance.now();
    const noting = this.wanted() && started - this.lastPolledAt >= this.noteEveryMs();
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
      this.lastReadAt = started;
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
