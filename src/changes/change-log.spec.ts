import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ChangesConfig } from '../config/configuration';
import type { ReadReplicas } from '../database/read-replicas';
import type { MetricsService } from '../observability/metrics.service';
import type { PolledChanges } from './change-event';
import { ChangeLog, FALLBACK_POLL_MS } from './change-log';
import type { ChangeLogRepository } from './change-log.repository';
import type { ChangeSignal } from './change-signal';

/** A change log whose every poll answers `answer()`; `signal.listening` says whether it hears the change signal, `signal.tell()` raises it. */
function changeLogOver(answer: () => PolledChanges, listening = false) {
  const polls: number[] = [];
  const noted: (string | null)[] = [];
  const repository = {
    poll: async (reader: string | null): Promise<PolledChanges> => {
      polls.push(Date.now());
      noted.push(reader);
      return answer();
    },
    noteRead: async () => undefined,
    forgetReader: async () => undefined,
    deleteExpired: async () => 0,
  } as unknown as ChangeLogRepository;
  const metrics = { measureChangeLog: () => undefined, changeLogPollFailures: { inc: () => undefined } } as unknown as MetricsService;
  const required = jest.fn<(lsn: string | null) => void>();
  const replicas = { notePrimary: () => undefined, require: required } as unknown as ReadReplicas;
  const config = { pollIntervalMs: 25, deafAfterMs: 1000, retentionDays: 30 } as ChangesConfig;
  const handlers: (() => void)[] = [];
  const signal = { listening, subscribe: (handler: () => void) => handlers.push(handler), tell: () => handlers.forEach((handler) => handler()) };
  return { log: new ChangeLog(config, repository, metrics, replicas, signal as unknown as ChangeSignal), polls, noted, required, signal };
}

/** A change log whose every poll finds `newEvents()` events after the last. */
function changeLogReading(newEvents: () => number, listening = false) {
  let head = 0;
  return changeLogOver(() => {
    const first = head;
    head += newEvents();
    const events = Array.from({ length: head - first }, (_, i) => ({ sequence: String(first + i + 1), source: 's', slug: `m${first + i + 1}`, lsn: '0/0' }));
    return { head: String(head), lsn: '0/0', oldest_pending: null, pending_for_ms: null, events };
  }, listening);
}

/** A change log whose event 7 has waited `waitedMs` for its sequence at every poll (a long transaction runs). */
const changeLogHeldBack = (waitedMs: number) =>
  changeLogOver(() => ({ head: '6', lsn: '0/10', oldest_pending: '7', pending_for_ms: waitedMs, events: [] }));

beforeEach(() => {
  jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('ChangeLog polling', () => {
  it('polls every CHANGES_POLL_INTERVAL_MS while its cache is used and the signal cannot be heard', async () => {
    const { log, polls } = changeLogReading(() => 0);
    await log.onApplicationBootstrap();
    log.cacheUsable();
    await jest.advanceTimersByTimeAsync(250);
    await log.onApplicationShutdown();
    expect(polls.length).toBeGreaterThanOrEqual(10);
    expect(polls.length).toBeLessThanOrEqual(12);
  });

  it('idle without the signal, polls every FALLBACK_POLL_MS, without saying it reads (writers elsewhere do not wait for it)', async () => {
    const { log, polls, noted } = changeLogReading(() => 0);
    await log.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(10 * FALLBACK_POLL_MS);
    await log.onApplicationShutdown();
    expect(polls.length).toBe(11);
    expect(noted.every((reader) => reader === null)).toBe(true);
    expect(log.live).toBe(false);
  });

  it('idle and listening, polls only when the signal is raised', async () => {
    const { log, polls, signal } = changeLogReading(() => 0, true);
    await log.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(100);
    const started = polls.length;
    await jest.advanceTimersByTimeAsync(60_000);
    expect(polls.length).toBe(started);
    signal.tell();
    await jest.advanceTimersByTimeAsync(60_000);
    await log.onApplicationShutdown();
    expect(polls.length).toBe(started + 1);
  });

  it('listening with its cache used, says it reads every 250 ms; the first use after a rest waits for a poll that says so', async () => {
    const { log, polls, noted } = changeLogReading(() => 0, true);
    await log.onApplicationBootstrap();
    expect(await log.cacheUsable()).toBe(true);
    expect(log.cacheUsable()).toBe(true);
    await jest.advanceTimersByTimeAsync(900);
    expect(polls.length).toBe(5);
    expect(noted.slice(1).every((reader) => reader !== null)).toBe(true);
    await jest.advanceTimersByTimeAsync(60_000);
    await log.onApplicationShutdown();
    expect(polls.length).toBeLessThanOrEqual(7);
  });

  it('polls every 5 ms while events come (writes elsewhere wait for it to read theirs), and slows down once they stop', async () => {
    let busy = true;
    const { log, polls } = changeLogReading(() => (busy ? 1 : 0));
    await log.onApplicationBootstrap();
    log.cacheUsable();
    await jest.advanceTimersByTimeAsync(250);
    const whileBusy = polls.length;
    busy = false;
    await jest.advanceTimersByTimeAsync(250);
    await log.onApplicationShutdown();
    expect(whileBusy).toBeGreaterThanOrEqual(45);
    expect(polls.length - whileBusy).toBeLessThanOrEqual(11);
  });
});

describe('ChangeLog with an event held back from its sequence', () => {
  it("stops trusting its cache once the event has waited CHANGES_DEAF_AFTER_MS by the database's clock, without waiting for a poll", async () => {
    const { log } = changeLogHeldBack(900);
    log.cacheUsable();
    await jest.advanceTimersByTimeAsync(0);
    await log.onApplicationShutdown();
    expect(log.live).toBe(true);
    await jest.advanceTimersByTimeAsync(101);
    expect(log.live).toBe(false);
  });

  it("has replicas reach the primary's position once the event has waited half of CHANGES_DEAF_AFTER_MS", async () => {
    const early = changeLogHeldBack(400);
    await early.log.pollSoon();
    expect(early.required).not.toHaveBeenCalled();
    const late = changeLogHeldBack(500);
    await late.log.pollSoon();
    expect(late.required).toHaveBeenCalledWith('0/10');
  });
});
