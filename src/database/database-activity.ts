import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type AfterQueryEvent, type EntitySubscriberInterface } from 'typeorm';
import { isDatabaseUnavailable, isPoolWaitTimeout } from './database-errors';

/** When the database last answered a statement, from every statement TypeORM runs (a transaction's BEGIN and COMMIT included). */
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

/** pg-pool reports a silent database and an instance outrunning its pool alike; DatabaseActivity tells them apart (5030, or 5031 with Retry-After). */
@Injectable()
export class DatabaseActivitySubscriber implements EntitySubscriberInterface {
  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly activity: DatabaseActivity,
  ) {
    dataSource.subscribers.push(this);
  }

  afterQuery(event: AfterQueryEvent): void {
    this.activity.statementEnded(event.success ? undefined : event.error);
  }
}
