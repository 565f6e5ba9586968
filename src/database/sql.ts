import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { DatabaseActivity } from './database-activity';
import { isDatabaseUnavailable } from './database-errors';
import { ReadReplicas } from './read-replicas';

/**
 * A SQL statement the service runs, and the rows it answers. Sent unnamed (parsed and planned
 * on every call): a named prepared statement belongs to one server session, which a pooler in
 * transaction mode hands to another client (PgBouncer 1.18: "prepared statement already exists").
 */
export class Statement<Row extends QueryResultRow> {
  declare readonly row?: Row;

  constructor(readonly text: string) {}
}

export const statement = <Row extends QueryResultRow = QueryResultRow>(text: string) => new Statement<Row>(text);

const PRIMARY_POSITION = statement<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');

/**
 * The one way the service runs SQL of its own: on the pool, or, inside a transaction, on the
 * transaction's connection. (TypeORM's entity methods do the plain inserts and lookups.)
 */
@Injectable()
export class Sql {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly activity: DatabaseActivity,
    @Optional() private readonly replicas?: ReadReplicas,
  ) {}

  /** The pg pool behind TypeORM (its size and waiting clients are metrics). */
  get pool(): Pool {
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }

  /** The rows of `statement` run with `values`, within `manager`'s transaction when given. */
  async rows<Row extends QueryResultRow>(statement: Statement<Row>, values: unknown[] = [], manager?: EntityManager): Promise<Row[]> {
    const runner: Pool | PoolClient = manager?.queryRunner ? ((await manager.queryRunner.connect()) as PoolClient) : this.pool;
    try {
      const result = await runner.query<Row>(statement.text, values);
      this.activity.statementEnded();
      return result.rows;
    } catch (error) {
      this.activity.statementEnded(error);
      throw error;
    }
  }

  /**
   * The rows of `statement`, which only reads, on a read replica that has every change this
   * instance knows of (ReadReplicas), else on the primary; a replica that fails is left for it.
   */
  async readRows<Row extends QueryResultRow>(statement: Statement<Row>, values: unknown[] = []): Promise<Row[]> {
    const replica = await this.replicas?.pick();
    if (replica) {
      try {
        const { rows } = await replica.query<Row>(statement.text, values);
        this.replicas!.served('replica');
        return rows;
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        this.replicas!.failed(replica);
      }
    }
    if (this.replicas?.configured) this.replicas.served('primary');
    return this.rows(statement, values);
  }

  /** After a write commits: replicas serve this instance's reads only once they have it. */
  async readYourWrites(): Promise<void> {
    if (!this.replicas?.configured) return;
    const [{ lsn }] = await this.rows(PRIMARY_POSITION);
    this.replicas.require(lsn);
  }

  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** The manager outside any transaction (for TypeORM's entity methods). */
  get manager(): EntityManager {
    return this.dataSource.manager;
  }
}
