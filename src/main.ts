import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { setTimeout as sleep } from 'node:timers/promises';
import { validateEnvironment } from './config/environment';
import { StartupError, startupNotice } from './config/startup-error';
import type { ExpressAdapterWithDeadlines } from './common/http/http-server';

/** How long the shutdown may still take once the grace is over and every connection is closed. */
const FINAL_SHUTDOWN_MS = 5_000;

async function bootstrap(): Promise<void> {
  const environment = validateEnvironment(process.env);
  // Loaded only now: AppModule validates the environment again as it loads, and a bad value
  // must be reported by the line below, not as an exception thrown while modules load.
  const { createApp } = await import('./create-app.js');
  const app = await createApp();
  await listen(app, environment.PORT);
  const logger = new Logger('Bootstrap');
  logger.log(`listening on port ${environment.PORT}`);

  // SIGTERM/SIGINT: readiness answers 503 at once, and the instance serves as usual for
  // SHUTDOWN_DELAY_MS (a load balancer's time to notice). Then it drains: answers close their
  // connections; after half a second (requests already on their way are answered), stop
  // accepting and let in-flight requests finish (at most SHUTDOWN_GRACE_MS in all); close the
  // pool and the embedded database (shutdown hooks), exit 0 (1 when the embedded database died:
  // DatabaseModule). Past the grace, the connections still open are closed and the shutdown goes
  // on; exit 1 only if it then does not end within a few seconds.
  const shutdown = async (signal: string) => {
    const adapter = app.getHttpAdapter() as ExpressAdapterWithDeadlines;
    adapter.announceStop();
    if (environment.SHUTDOWN_DELAY_MS > 0) {
      logger.log(`${signal} received: /health/ready answers 503; serving ${environment.SHUTDOWN_DELAY_MS} ms more, then draining`);
      await sleep(environment.SHUTDOWN_DELAY_MS);
      logger.log('draining in-flight requests, then stopping');
    } else {
      logger.log(`${signal} received: draining in-flight requests, then stopping`);
    }
    const deadline = setTimeout(() => {
      logger.warn(`requests still in progress after ${environment.SHUTDOWN_GRACE_MS} ms: closing their connections`);
      adapter.closeAllConnections();
      setTimeout(() => {
        logger.error('the shutdown did not end after the connections were closed: exiting');
        process.exit(1);
      }, FINAL_SHUTDOWN_MS).unref();
    }, environment.SHUTDOWN_GRACE_MS);
    deadline.unref();
    await adapter.drain(environment.SHUTDOWN_GRACE_MS);
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
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

async function listen(app: NestExpressApplication, port: number): Promise<void> {
  try {
    await app.listen(port);
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new StartupError(`port ${port} is already in use: stop what listens there, or set PORT`);
    if (code === 'EACCES') throw new StartupError(`port ${port} may not be opened by this user: set PORT to 1024 or above`);
    throw error;
  }
}

// Startup and configuration errors: one line naming the problem (and the fix), exit code 1.
bootstrap().catch((error: unknown) => {
  const message = error instanceof StartupError ? error.message : `could not start: ${error instanceof Error ? error.message : String(error)}`;
  startupNotice(message);
  process.exit(1);
});
