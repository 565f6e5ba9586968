import type { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

const INTERVAL_MS = 60_000;

/** A warning that repeats while a dependency is down (every poll of a worker, say), logged at most once a minute. */
export function throttledWarning(logger: Logger): (message: string) => void {
  let lastLogged = Number.NEGATIVE_INFINITY;
  return (message) => {
    if (performance.now() - lastLogged < INTERVAL_MS) return;
    lastLogged = performance.now();
    logger.warn(`${message} (logged at most once a minute)`);
  };
}

/** The same, once a minute per key (a webhook, say); the keys remembered are bounded, the least recently warned forgotten first. */
export function throttledWarningPer(logger: Logger, maxKeys = 10_000): (key: string, message: string) => void {
  const lastLogged = new LRUCache<string, number>({ max: maxKeys });
  return (key, message) => {
    const last = lastLogged.get(key);
    if (last !== undefined && performance.now() - last < INTERVAL_MS) return;
    lastLogged.set(key, performance.now());
    logger.warn(`${message} (logged at most once a minute for it)`);
  };
}
