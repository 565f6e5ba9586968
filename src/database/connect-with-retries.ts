import { setTimeout as sleep } from 'node:timers/promises';
import { StartupError } from '../config/startup-error';
import { isDatabaseUnavailable } from './database-errors';

const ATTEMPTS = 10;
const DELAY_MS = 2000;

/** Answers of a server (or a pooler) that will not change by waiting: refusals, reported as such at once. */
export const CONNECTION_REFUSALS = /^(08P01|28|3D000|42501)/;

/** Waits for a database not up yet (instances often start beside it); refusals are not retried. The StartupError names it, never its password. */
export async function connectWithRetries<T>(url: string, connect: () => Promise<T>, warn: (message: string) => void): Promise<T> {
  const where = describeTarget(url);
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect();
    } catch (error) {
      const reason = reasonOf(error);
      const code = (error as { code?: unknown })?.code;
      if (typeof code === 'string' && CONNECTION_REFUSALS.test(code)) {
        throw new StartupError(`the database at ${where} refused the connection: ${reason} (${hintFor(reason)})`);
      }
      if (!isDatabaseUnavailable(error) || attempt === ATTEMPTS) {
        throw new StartupError(`cannot use the database at ${where}: ${reason} (check DATABASE_URL and that the server is up)`);
      }
      warn(`the database at ${where} is not reachable (${reason}); trying again in ${DELAY_MS / 1000} s (${attempt} of ${ATTEMPTS - 1})`);
      await sleep(DELAY_MS);
    }
  }
}

// PgBouncer refuses the migrations' statement_timeout, sent as a startup parameter.
function hintFor(reason: string): string {
  return reason.includes('unsupported startup parameter')
    ? 'a pooler: set DATABASE_DIRECT_URL to the database itself, where migrations run'
    : "check the URL, its credentials and the pooler's settings";
}

function describeTarget(url: string): string {
  if (!url) return 'the configured address';
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

function reasonOf(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message ? message.split('\n')[0] : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}
