import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ExpressAdapterWithDeadlines } from '../edge/http-server';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { changesConfig, type ChangesConfig } from '../config/configuration';
import { ChangeLog, type ChangeListener } from './change-log';

interface Waiter {
  source: string;
  keyId: string;
  after: bigint;
  wake: () => void;
}

/** The changes feed's long polls: CHANGES_WAITS_PER_KEY per API key, CHANGES_WAITS_MAX per instance (4290 beyond). */
@Injectable()
export class ChangeWaiters implements ChangeListener, OnApplicationBootstrap {
  private readonly bySource = new Map<string, Set<Waiter>>();
  private readonly perKey = new Map<string, number>();
  private readonly perKeyLimit: number;
  private readonly limit: number;
  private held = 0;
  private stopping = false;

  constructor(
    @Inject(changesConfig.KEY) config: ChangesConfig,
    private readonly changes: ChangeLog,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    this.perKeyLimit = config.waitsPerKey;
    this.limit = config.waitsMax;
    changes.subscribe(this);
  }

  onApplicationBootstrap(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter instanceof ExpressAdapterWithDeadlines) adapter.whenStopping(() => this.stop());
  }

  /** Resolves once `source` has an event after `after` (as far as this instance has read), after `waitMs`, or once `left` (its client left). */
  async wait(source: string, keyId: string, after: bigint, waitMs: number, left: AbortSignal): Promise<void> {
    if (this.stopping || left.aborted || (this.changes.lastSequence(source) ?? 0n) > after) return;
    if (this.held >= this.limit || (this.perKey.get(keyId) ?? 0) >= this.perKeyLimit) {
      throw new ApiError(ErrorCatalogue.TOO_MANY_REQUESTS, 'too many changes feed requests waiting');
    }
    let timer: NodeJS.Timeout | undefined;
    const waiter = { source, keyId, after, wake: () => undefined } as Waiter;
    const woken = new Promise<void>((resolve) => {
      waiter.wake = resolve;
      timer = setTimeout(resolve, waitMs);
    });
    this.add(waiter);
    left.addEventListener('abort', waiter.wake, { once: true });
    this.changes.pollNow();
    try {
      await woken;
    } finally {
      clearTimeout(timer);
      left.removeEventListener('abort', waiter.wake);
      this.remove(waiter);
    }
  }

  changed(source: string): void {
    const sequence = this.changes.lastSequence(source) ?? 0n;
    for (const waiter of this.bySource.get(source) ?? []) if (sequence > waiter.after) waiter.wake();
  }

  /** The database may be gone (a primary outage): each held long poll reads the feed now, and answers what that read does (5030). */
  unreadable(): void {
    this.wakeAll();
  }

  /** Every long poll is answered now, and none is held from now on. */
  stop(): void {
    this.stopping = true;
    this.wakeAll();
  }

  private wakeAll(): void {
    for (const waiters of this.bySource.values()) for (const waiter of waiters) waiter.wake();
  }

  private add(waiter: Waiter): void {
    let waiters = this.bySource.get(waiter.source);
    if (!waiters) this.bySource.set(waiter.source, (waiters = new Set()));
    waiters.add(waiter);
    this.perKey.set(waiter.keyId, (this.perKey.get(waiter.keyId) ?? 0) + 1);
    this.held++;
  }

  private remove(waiter: Waiter): void {
    const waiters = this.bySource.get(waiter.source);
    waiters?.delete(waiter);
    if (waiters?.size === 0) this.bySource.delete(waiter.source);
    const count = (this.perKey.get(waiter.keyId) ?? 1) - 1;
    if (count === 0) this.perKey.delete(waiter.keyId);
    else this.perKey.set(waiter.keyId, count);
    this.held--;
  }
}
