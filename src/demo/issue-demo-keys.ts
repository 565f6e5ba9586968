// `npm run demo:keys`: new demo keys on the zero-setup database (see issueDemoKeys).
import 'reflect-metadata';
import { authConfig, databaseConfig } from '../config/configuration';
import { StartupError, startupNotice } from '../config/startup-error';
import { issueDemoKeys } from './demo-keys';
import { ADMIN_KEY_REPLACED, printDemoKeys } from './demo-keys-notice';

issueDemoKeys(databaseConfig(), authConfig()).then(
  (keys) => printDemoKeys(keys, 'New demo keys.', ADMIN_KEY_REPLACED),
  (error: unknown) => {
    const message = error instanceof StartupError ? error.message : `demo keys could not be issued: ${error instanceof Error ? error.message : String(error)}`;
    startupNotice(message);
    process.exit(1);
  },
);
