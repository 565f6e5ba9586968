import { execFileSync } from 'node:child_process';
import databaseSetup from '../../support/global-setup';

/**
 * The browser suites need what `npm run build` makes of the page (the app under test runs
 * from the sources, which serve the bundle from dist/back-office/assets), and a PostgreSQL
 * server, as the e2e suites do.
 */
export default async function globalSetup(): Promise<void> {
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build:back-office'], { stdio: 'inherit' });
  await databaseSetup();
}
