import './require-node';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { httpConfig } from './config/configuration';
import { StartupError, startupNotice } from './config/startup-error';
import { createApp } from './create-app';
import { DemoDataService } from './demo/demo-data.service';
import { stopOnSignals } from './shutdown';

async function bootstrap(): Promise<void> {
  const http = httpConfig();
  const app = await createApp();
  await listen(app, http.port);
  new Logger('Bootstrap').log(`listening on port ${http.port}`);
  app.get(DemoDataService).showCreatedKeys();
  stopOnSignals(app, http);
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
