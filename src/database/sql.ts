import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, QueryResultRow } from 'pg';
import sqlTag, { empty, join, raw, type Sql as Query } from 'sql-template-tag';
import { DataSource, type EntityManager, type QueryRunner } from 'typeorm';
import { isQueryReadTimeout } from './database-errors';
import { ReadReplicas } from './read-replicas';

export { empty, join, raw };

/** Sent unnamed (planned on every call): a named prepared statement belongs to one server session, which a transaction-mode pooler hands to another client. */
export type Statement<Row extends QueryResultRow = QueryResultRow> = Query & { readonly row?: Row };

/** sql`SELECT ... WHERE id = ${id}`: each `${value}` is a bound parameter; a nested statement is inlined with its values. */
export const sql = sqlTag as <Row extends QueryResultRow = QueryResultRow>(strings: readonly string[], ...values: unknown[]) => Statement<Row>;

/** A transaction in progress: TypeORM's transactional entity manager (its repositories, and statements given to Sql, run in it). */
export type Transaction = EntityManager;

const PRIMARY_POSITION = sql<{ lsn: string }>`SELECT pg_current_wal_lsn()::text AS lsn`;

/** Hand-tuned statements on the DataSource @nestjs/typeorm provides: on the primary, a read replica, or a transaction's connection. */
@Injectable()
export class Sql {
  constructor(
    @InjectDataSource() readonly dataSource: DataSource,
    @Optional() private readonly replicas?: ReadReplicas,
  ) {}

  /** TypeORM's pg pool (its postgres driver's `master`, which no public type names), for its counts (readiness, metrics). */
  get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  /** The rows `statement` answers (an UPDATE's or DELETE's RETURNING rows too), within `tx` when given. */
  async rows<Row extends QueryResultRow>(statement: Statement<Row>, tx?: Transaction): Promise<Row[]> {
    if (tx) return this.run<Row>(tx.queryRunner!, statement.text, statement.values);
    const runner = this.dataSource.createQueryRunner();
    try {
      return await this.run<Row>(runner, statement.text, statement.values);
    } catch (error) {
      if (isQueryReadTimeout(error)) await abandon(runner);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** For statements that only read: on a replica with every change this instance knows of (ReadReplicas), else the primary. */
  async readRows<Row extends QueryResultRow>(statement: Statement<Row>): Promise<Row[]> {
    const rows = await this.replicas?.read<Row>(statement.text, statement.values);
    return rows ?? this.rows(statement);
  }

  /** After a write commits: replicas serve this instance's reads only once they have it. */
  async readYourWrites(): Promise<void> {
    if (!this.replicas?.configured) return;
    const [{ lsn }] = await this.rows(PRIMARY_POSITION);
    this.replicas.require(lsn);
  }

  /** A statement a library wrote (pg-boss's, as its `db` option), run within `tx`. */
  async execute(text: string, values: unknown[] | undefined, tx: Transaction): Promise<{ rows: QueryResultRow[] }> {
    return { rows: await this.run(tx.queryRunner!, text, values) };
  }

  /** `work` in one transaction. A statement the server left unanswered (query_timeout) ends the connection: a ROLLBACK would queue behind it and wait as long again. */
  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      try {
        await runner.startTransaction();
        const result = await work(runner.manager);
        await runner.commitTransaction();
        return result;
      } catch (error) {
        if (isQueryReadTimeout(error)) await abandon(runner);
        else if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        throw error;
      }
    } finally {
      await runner.release();
    }
  }

  private async run<Row extends QueryResultRow>(runner: QueryRunner, text: string, values?: unknown[]): Promise<Row[]> {
    return (await runner.query(text, values, true)).records as Row[];
  }
}

// pg ends a client with a query in flight by destroying its socket (the server rolls back); pg-pool drops an ended client on release.
async function abandon(runner: QueryRunner): Promise<void> {
  const client = (await runner.connect()) as { end(): Promise<void> };
  client.end().catch(() => undefined);
}
