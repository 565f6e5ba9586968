import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { DeliveryJobRef } from './delivery-queue';
import { DeliveryLoop, IDLE_FETCH_MS } from './delivery-loop';
import { PartnerShares } from './partner-shares';

/** A loop over a queue of `waiting` jobs whose attempts end when `finish()` is called. */
function loopOver(waiting: number, capacity: number) {
  const fetches: number[] = [];
  const running: (() => void)[] = [];
  let left = waiting;
  const loop = new DeliveryLoop(
    capacity,
    async (limit) => {
      fetches.push(limit);
      const taken = Math.min(limit, left);
      left -= taken;
      return Array.from({ length: taken }, () => new Promise<void>((resolve) => running.push(resolve)));
    },
    () => undefined,
  );
  const finish = (count: number) => running.splice(0, count).forEach((resolve) => resolve());
  return { loop, fetches, running, finish, left: () => left };
}

beforeEach(() => {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('DeliveryLoop', () => {
  it('takes a batch up to its capacity, then refills once a quarter is free, not a job at a time', async () => {
    const { loop, fetches, running, finish } = loopOver(1_000, 64);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(fetches).toEqual([64]);
    expect(running).toHaveLength(64);
    finish(15);
    await jest.advanceTimersByTimeAsync(0);
    expect(fetches).toEqual([64]);
    finish(1);
    await jest.advanceTimersByTimeAsync(0);
    expect(fetches).toEqual([64, 16]);
    finish(running.length);
    await loop.stop(0);
  });

  it('fetches again as attempts end after a fetch that took none (jobs held behind a webhook\'s limit), not IDLE_FETCH_MS later', async () => {
    const { loop, fetches, running, finish } = loopOver(6, 64);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    loop.wake();
    await jest.advanceTimersByTimeAsync(0);
    expect(fetches).toEqual([64, 58]);
    expect(running).toHaveLength(6);
    finish(6);
    await jest.advanceTimersByTimeAsync(0);
    expect(fetches.length).toBeGreaterThan(2);
    await loop.stop(0);
  });

  it('idle, fetches every IDLE_FETCH_MS, and at once when woken', async () => {
    const { loop, fetches } = loopOver(0, 64);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    await jest.advanceTimersByTimeAsync(IDLE_FETCH_MS);
    expect(fetches).toHaveLength(2);
    loop.wake();
    await jest.advanceTimersByTimeAsync(0);
    expect(fetches).toHaveLength(3);
    await loop.stop(0);
  });

  it('on stop, gives attempts in flight their grace, then aborts them', async () => {
    let aborted = false;
    const loop = new DeliveryLoop(
      4,
      async (limit, stop) => [new Promise<void>((resolve) => stop.addEventListener('abort', () => ((aborted = true), resolve())))].slice(0, limit),
      () => undefined,
    );
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    const stopped = loop.stop(3_000);
    await jest.advanceTimersByTimeAsync(2_999);
    expect(aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    await stopped;
    expect(aborted).toBe(true);
  });
});

describe('PartnerShares', () => {
  const job = (source: string, webhook: string) => ({ data: { delivery_id: '1', source }, groupId: webhook }) as unknown as DeliveryJobRef;

  it("skips a partner's webhooks once it holds its share, and none once one of its attempts ends", () => {
    const shares = new PartnerShares(2);
    shares.started(job('a', '1'));
    shares.started(job('b', '3'));
    expect(shares.skipped()).toEqual([]);
    shares.started(job('a', '2'));
    expect(shares.skipped().sort()).toEqual(['1', '2']);
    shares.ended(job('a', '1'));
    expect(shares.skipped()).toEqual([]);
  });
});
