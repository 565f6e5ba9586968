import { describe, expect, it } from '@jest/globals';
import { WriteAnnouncements } from './write-announcements';

const settledWithin = async (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise((done) => setTimeout(() => done(false), ms))]);

describe('WriteAnnouncements', () => {
  it('releases a writer when its transaction is heard, or at once when it was heard before', async () => {
    const announcements = new WriteAnnouncements();
    const waiting = announcements.waitFor('7', 10_000);
    expect(await settledWithin(waiting, 20)).toBe(false);
    announcements.heard('7');
    expect(await settledWithin(waiting, 20)).toBe(true);
    announcements.heard('8');
    expect(await settledWithin(announcements.waitFor('8', 10_000), 20)).toBe(true);
  });

  it('gives up after the timeout, and releases everyone when the feed goes deaf', async () => {
    const announcements = new WriteAnnouncements();
    expect(await settledWithin(announcements.waitFor('9', 30), 200)).toBe(true);
    const waiting = announcements.waitFor('10', 10_000);
    announcements.releaseAll();
    expect(await settledWithin(waiting, 20)).toBe(true);
  });
});
