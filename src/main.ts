import './require-node';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { validateEnvironment } from './config/environment';
import { StartupError, startupNotice } from './config/startup-error';
import { stopOnSignals } from './shutdown';

async function bootstrap(): Promise<void> {
  const environment = validateEnvironment(process.env);
  // Loaded only now: AppModule validates the environment again as it loads, and a bad value
  // must be reported by the line below, not as an exception thrown while modules load.
  const { createApp } = await import('./create-app.js');
  const app = await createApp();
  await listen(app, environment.PORT);
  const logger = new Logger('Bootstrap');
  logger.log(`listening on port ${environment.PORT}`);
  const { DemoDataService } = await import('./demo/demo-data.service.js');
  app.get(DemoDataService).showCreatedKeys();

  stopOnSignals(app, environment);
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
