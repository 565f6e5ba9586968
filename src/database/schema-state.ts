import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntitySubscriberInterface } from 'typeorm';

/** What a statement meets while the schema waits for its migrations (a standby at start): the database cannot serve yet, 5030. */
export class SchemaPendingError extends Error {
  override readonly name = 'SchemaPendingError';

  constructor() {
    super('the database schema has migrations pending, to be applied once a primary answers');
  }
}

/** Whether the database's schema is this release's; until it is, every statement is refused (SchemaPendingError). */
export class SchemaState {
  private pending = false;

  get current(): boolean {
    return !this.pending;
  }

  markPending(): void {
    this.pending = true;
  }

  markCurrent(): void {
    this.pending = false;
  }

  assertCurrent(): void {
    if (this.pending) throw new SchemaPendingError();
  }
}

/** Holds every statement of the app's DataSource (entity repositories' and Sql's alike) to SchemaState: while migrations are pending, 5030. */
@Injectable()
export class SchemaGate implements EntitySubscriberInterface {
  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly state: SchemaState,
  ) {
    dataSource.subscribers.push(this);
  }

  beforeQuery(): void {
    this.state.assertCurrent();
  }
}
