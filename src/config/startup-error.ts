/**
 * A reason the service cannot start that the person starting it can fix: its message is one
 * line naming the problem and the fix, printed as is (no stack trace), and the process exits 1.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/**
 * A line about starting up, written before the application's logger exists (Nest holds log
 * lines back until the app is built, and drops them if it never is): plain, on stderr.
 */
export function startupNotice(message: string): void {
  process.stderr.write(`settlement-oracle: ${message}\n`);
}
