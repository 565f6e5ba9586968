import './require-node';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { databaseConfig, httpConfig, webhooksConfig } from './config/configuration';
import { hostProblem, listenAddress } from './config/listening';
import { StartupError, startupNotice } from './config/startup-error';
import { weakenedDefaults } from './config/weakened-defaults';
import { createApp } from './create-app';
import { DemoDataService } from './demo/demo-data.service';
import { stopOnSignals } from './shutdown';

async function bootstrap(): Promise<void> {
  const http = httpConfig();
  const app = await createApp();
  await listen(app, http.port, http.host);
  const logger = new Logger('Bootstrap');
  logger.log(`listening on ${listenAddress(http.host, http.port)}`);
  const weakened = weakenedDefaults(http, webhooksConfig(), databaseConfig().url === undefined);
  if (weakened.length > 0) logger.warn(`settings in force that weaken a default: ${weakened.join('; ')}`);
  app.get(DemoDataService).showCreatedKeys();
  stopOnSignals(app, http);
}

async function listen(app: NestExpressApplication, port: number, host: string | undefined): Promise<void> {
  try {
    await (host === undefined ? app.listen(port) : app.listen(port, host));
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new StartupError(`port ${port} is already in use: stop what listens there, or set PORT`);
    if (code === 'EACCES') throw new StartupError(`port ${port} may not be opened by this user: set PORT to 1024 or above`);
    const hostRefused = hostProblem(host, code);
    if (hostRefused) throw new StartupError(hostRefused);
    throw error;
  }
}

// Startup and configuration errors: one line naming the problem (and the fix), exit code 1.
bootstrap().catch((error: unknown) => {
  const message = error instanceof StartupError ? error.message : `could not start: ${error instanceof Error ? error.message : String(error)}`;
  startupNotice(message);
  process.exit(1);
});
