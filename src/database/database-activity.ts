import { isDatabaseUnavailable, isPoolWaitTimeout } from './database-errors';

/**
 * Whether the database is serving this instance: the last time it answered one of the
 * instance's statements (a result, or an SQL error such as a unique violation; not a connection
 * that failed, nor a statement cancelled by a timeout), as Sql reports every statement it runs.
 *
 * It tells apart two failures that pg-pool reports alike, "timeout exceeded when trying to
 * connect" after DB_CONNECT_TIMEOUT_MS: a database that does not answer (nothing comes back:
 * 5030) and an instance with more requests than its pool serves in that time while the database
 * answers the others (the instance is busy: 5031, with Retry-After).
 */
export class DatabaseActivity {
  private lastAnsweredAt = Number.NEGATIVE_INFINITY;

  /** `connectTimeoutMs`: the pool's wait for a connection (DB_CONNECT_TIMEOUT_MS). */
  constructor(private readonly connectTimeoutMs: number) {}

  /** A statement came back, with `error` when it failed. */
  statementEnded(error?: unknown): void {
    if (error === undefined || !isDatabaseUnavailable(error)) this.lastAnsweredAt = performance.now();
  }

  /**
   * `error` is a wait for a pool connection that timed out while the database answered other
   * statements: the instance's overload, not the database's failure.
   */
  isOverload(error: unknown): boolean {
    return isPoolWaitTimeout(error) && this.answeredRecently();
  }

  /**
   * `error` is a pool wait that timed out with no answer heard in its window, and answers may be
   * waiting in the connections' sockets: when a turn of the event loop runs long, timers (the
   * pool's wait) run before the sockets are read. Judge it after a setImmediate, once they are.
   */
  mayHaveUnreadAnswers(error: unknown): boolean {
    return isPoolWaitTimeout(error) && !this.answeredRecently();
  }

  /** The database answered a statement within the pool's wait for a connection (DB_CONNECT_TIMEOUT_MS): the window both judgements use. */
  answeredRecently(): boolean {
    return performance.now() - this.lastAnsweredAt <= this.connectTimeoutMs;
  }
}
