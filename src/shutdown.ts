import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExpressAdapterWithDeadlines } from './edge/http-server';
import type { HttpConfig } from './config/configuration';

/** How long the shutdown may still take once the grace is over and every connection is closed. */
const FINAL_SHUTDOWN_MS = 5_000;

const EXIT_CODE_OF_SIGNAL = { SIGINT: 130, SIGTERM: 143 } as const;

/** A second signal this soon is the first one again: Ctrl-C reaches the server from the terminal and from npm. */
const SAME_SIGNAL_MS = 1_000;
type StopSignal = keyof typeof EXIT_CODE_OF_SIGNAL;

// Readiness 503 at once, SHUTDOWN_DELAY_MS serving as usual for balancers to notice, then drain (SHUTDOWN_GRACE_MS).
// A stop a failure asked for (DatabaseModule sets the exit code, then signals) has nothing to serve: no delay. Any
// other second signal ends the process at once.
export function stopOnSignals(app: NestExpressApplication, http: HttpConfig): void {
  const logger = new Logger('Bootstrap');
  const adapter = app.getHttpAdapter() as ExpressAdapterWithDeadlines;
  const delay = new AbortController();
  let stopping = false;
  let firstSignalAt = 0;

  const stop = async (signal: StopSignal) => {
    adapter.announceStop();
    if (http.shutdownDelayMs > 0 && !process.exitCode) {
      logger.log(`${signal} received: /health/ready answers 503; serving ${http.shutdownDelayMs} ms more, then draining`);
      await sleep(http.shutdownDelayMs, undefined, { signal: delay.signal }).catch(() => undefined);
      logger.log('draining in-flight requests, then stopping');
    } else {
      logger.log(`${process.exitCode ? 'stopping after that failure' : `${signal} received`}: draining in-flight requests, then stopping`);
    }
    const deadline = setTimeout(() => {
      logger.warn(`requests still in progress after ${http.shutdownGraceMs} ms: closing their connections`);
      adapter.closeAllConnections();
      setTimeout(() => {
        logger.error('the shutdown did not end after the connections were closed: exiting');
        process.exit(1);
      }, FINAL_SHUTDOWN_MS).unref();
    }, http.shutdownGraceMs);
    deadline.unref();
    await adapter.drain(http.shutdownGraceMs);
    app.close().then(
      () => {
        logger.log('stopped');
        process.exit(); // 0, or the exitCode of the failure that asked for the stop
      },
      (error: unknown) => {
        logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };

  const onSignal = (signal: StopSignal) => {
    if (!stopping) {
      stopping = true;
      firstSignalAt = performance.now();
      void stop(signal);
    } else if (performance.now() - firstSignalAt < SAME_SIGNAL_MS) {
      return;
    } else if (process.exitCode) {
      delay.abort();
    } else {
      process.exit(EXIT_CODE_OF_SIGNAL[signal]);
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
