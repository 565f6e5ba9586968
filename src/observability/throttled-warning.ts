import type { Logger } from '@nestjs/common';

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
