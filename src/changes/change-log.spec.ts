import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ChangesConfig } from '../config/configuration';
import type { ReadReplicas } from '../database/read-replicas';
import type { MetricsService } from '../observability/metrics.service';
import type { PolledChanges } from './change-event';
import { ChangeLog } from './change-log';
import type { ChangeLogRepository } from './change-log.repository';

/** A change log whose every poll finds `newEvents()` events after the last. */
function changeLogReading(newEvents: () => number) {
  let head = 0;
  const polls: number[] = [];
  const repository = {
    poll: async (): Promise<PolledChanges> => {
      polls.push(Date.now());
      const first = head;
      head += newEvents();
      const events = Array.from({ length: head - first }, (_, i) => ({ sequence: String(first + i + 1), source: 's', slug: `m${first + i + 1}`, lsn: '0/0' }));
      return { head: String(head), lsn: '0/0', oldest_pending: null, events } as PolledChanges;
    },
    noteRead: async () => undefined,
    forgetReader: async () => undefined,
    deleteExpired: async () => 0,
  } as unknown as ChangeLogRepository;
  const metrics = { measureChangeLog: () => undefined, changeLogPollFailures: { inc: () => undefined } } as unknown as MetricsService;
  const replicas = { notePrimary: () => undefined, require: () => undefined } as unknown as ReadReplicas;
  const config = { pollIntervalMs: 25, deafAfterMs: 1000, retentionDays: 30 } as ChangesConfig;
  return { log: new ChangeLog(config, repository, metrics, replicas), polls };
}

describe('ChangeLog polling', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('polls every CHANGES_POLL_INTERVAL_MS while nothing changes', async () => {
    const { log, polls } = changeLogReading(() => 0);
    await log.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(250);
    await log.onApplicationShutdown();
    expect(polls.length).toBeGreaterThanOrEqual(10);
    expect(polls.length).toBeLessThanOrEqual(11);
  });

  it('polls every 5 ms while events come (writes elsewhere wait for it to read theirs), and slows down once they stop', async () => {
    let busy = true;
    const { log, polls } = changeLogReading(() => (busy ? 1 : 0));
    await log.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(250);
    const whileBusy = polls.length;
    busy = false;
    await jest.advanceTimersByTimeAsync(250);
    await log.onApplicationShutdown();
    expect(whileBusy).toBeGreaterThanOrEqual(45);
    expect(polls.length - whileBusy).toBeLessThanOrEqual(11);
  });
});
