import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Environment } from './config/environment';
import { createApp } from './create-app';

async function bootstrap(): Promise<void> {
  const app = await createApp();
  const port = app.get(ConfigService<Environment, true>).get('PORT', { infer: true });
  await app.listen(port);
  new Logger('Bootstrap').log(`listening on port ${port}`);
}

bootstrap().catch((error: unknown) => {
  new Logger('Bootstrap').error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
