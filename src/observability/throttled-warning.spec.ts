import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Logger } from '@nestjs/common';
import { throttledWarningPer } from './throttled-warning';

describe('throttledWarningPer', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('warns once a minute for each key, each key on its own clock', () => {
    const warn = jest.fn();
    const warnFor = throttledWarningPer({ warn } as unknown as Logger);
    warnFor('3', 'webhook 3 failed');
    warnFor('3', 'webhook 3 failed');
    warnFor('4', 'webhook 4 failed');
    expect(warn.mock.calls.map(([message]) => message)).toEqual([
      'webhook 3 failed (logged at most once a minute for it)',
      'webhook 4 failed (logged at most once a minute for it)',
    ]);
    jest.advanceTimersByTime(59_000);
    warnFor('3', 'webhook 3 failed');
    expect(warn).toHaveBeenCalledTimes(2);
    jest.advanceTimersByTime(1_000);
    warnFor('3', 'webhook 3 failed');
    expect(warn).toHaveBeenCalledTimes(3);
  });

  it('remembers a bounded number of keys: a forgotten one warns again at once', () => {
    const warn = jest.fn();
    const warnFor = throttledWarningPer({ warn } as unknown as Logger, 2);
    for (const key of ['1', '2', '3', '1']) warnFor(key, `webhook ${key} failed`);
    expect(warn).toHaveBeenCalledTimes(4);
  });
});
