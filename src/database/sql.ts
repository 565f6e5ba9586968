import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import sqlTag, { empty, join, raw, type Sql as Query } from 'sql-template-tag';
import { DATABASE_POOL } from './database-pool';
import { DatabaseActivity } from './database-activity';
import { isDatabaseUnavailable, isQueryReadTimeout } from './database-errors';
import { ReadReplicas } from './read-replicas';

export { empty, join, raw };

/** Sent unnamed (planned on every call): a named prepared statement belongs to one server session, which a transaction-mode pooler hands to another client. */
export type Statement<Row extends QueryResultRow = QueryResultRow> = Query & { readonly row?: Row };

/** sql`SELECT ... WHERE id = ${id}`: each `${value}` is a bound parameter; a nested statement is inlined with its values. */
export const sql = sqlTag as <Row extends QueryResultRow = QueryResultRow>(strings: readonly string[], ...values: unknown[]) => Statement<Row>;

/** A transaction in progress: statements given it run on its connection. */
export class Transaction {
  /** @internal */
  constructor(readonly client: PoolClient) {}
}

const PRIMARY_POSITION = sql<{ lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`;

/** The one way the service runs SQL: on the pool, on a read replica, or on a transaction's connection. */
@Injectable()
export class Sql {
  constructor(
    @Inject(DATABASE_POOL) readonly pool: Pool,
    private readonly activity: DatabaseActivity,
    @Optional() private readonly replicas?: ReadReplicas,
  ) {}

  rows<Row extends QueryResultRow>(statement: Statement<Row>, tx?: Transaction): Promise<Row[]> {
    return this.run<Row>(tx?.client ?? this.pool, statement.text, statement.values);
  }

  /** For statements that only read: on a replica with every change this instance knows of (ReadReplicas), else the primary; a failing replica falls back. */
  async readRows<Row extends QueryResultRow>(statement: Statement<Row>): Promise<Row[]> {
    const replica = await this.replicas?.pick();
    if (replica) {
      try {
        const { rows } = await replica.query<Row>(statement.text, statement.values);
        this.replicas!.served('replica');
        return rows;
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        this.replicas!.failed(replica);
      }
    }
    if (this.replicas?.configured) this.replicas.served('primary');
    return this.rows(statement);
  }

  /** After a write commits: replicas serve this instance's reads only once they have it. */
  async readYourWrites(): Promise<void> {
    if (!this.replicas?.configured) return;
    const [{ lsn }] = await this.rows(PRIMARY_POSITION);
    this.replicas.require(lsn);
  }

  /** A statement a library wrote (pg-boss's, as its `db` option), run within `tx`. */
  async execute(text: string, values: unknown[] | undefined, tx: Transaction): Promise<{ rows: QueryResultRow[] }> {
    return { rows: await this.run(tx.client, text, values) };
  }

  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A connection that fails while checked out says so here (unheard, the event would end the
    // process); it is then destroyed rather than given back.
    let broken: Error | undefined;
    const onError = (error: Error) => (broken ??= error);
    client.on('error', onError);
    try {
      await this.run(client, 'BEGIN');
      const result = await work(new Transaction(client));
      await this.run(client, 'COMMIT');
      return result;
    } catch (error) {
      // A hung server: the connection is dropped (the server rolls back), not given a ROLLBACK that would wait as long again.
      if (isQueryReadTimeout(error)) broken ??= error as Error;
      if (!broken) await this.run(client, 'ROLLBACK').catch((failed: Error) => (broken ??= failed));
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  private async run<Row extends QueryResultRow>(runner: Pool | PoolClient, text: string, values?: unknown[]): Promise<Row[]> {
    try {
      const { rows } = await runner.query<Row>(text, values);
      this.activity.statementEnded();
      return rows;
    } catch (error) {
      this.activity.statementEnded(error);
      throw error;
    }
  }
}
