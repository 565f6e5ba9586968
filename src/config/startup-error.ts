/** A start-up problem the person starting it can fix: one line naming the problem and the fix, printed without a stack, then exit 1. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** Plain, on stderr: Nest holds log lines back until the app is built, and drops them if it never is. */
export function startupNotice(message: string): void {
  process.stderr.write(`settlement-oracle: ${message}\n`);
}
