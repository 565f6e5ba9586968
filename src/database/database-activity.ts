import { isDatabaseUnavailable, isPoolWaitTimeout } from './database-errors';

/** pg-pool reports a silent database and an instance outrunning its pool alike; when the database last answered tells them apart: 5030, or 5031 with Retry-After. */
export class DatabaseActivity {
  private lastAnsweredAt = Number.NEGATIVE_INFINITY;

  /** `connectTimeoutMs`: the pool's wait for a connection (DB_CONNECT_TIMEOUT_MS). */
  constructor(private readonly connectTimeoutMs: number) {}

  statementEnded(error?: unknown): void {
    if (error === undefined || !isDatabaseUnavailable(error)) this.lastAnsweredAt = performance.now();
  }

  /** A pool wait that timed out while the database answered others: this instance's overload, not a database failure. */
  isOverload(error: unknown): boolean {
    return isPoolWaitTimeout(error) && this.answeredRecently();
  }

  /** Answers may sit unread, as a long event-loop turn runs timers before reading sockets: judge it again after a setImmediate. */
  mayHaveUnreadAnswers(error: unknown): boolean {
    return isPoolWaitTimeout(error) && !this.answeredRecently();
  }

  /** Whether the database answered within the pool's wait for a connection (DB_CONNECT_TIMEOUT_MS). */
  answeredRecently(): boolean {
    return performance.now() - this.lastAnsweredAt <= this.connectTimeoutMs;
  }
}
