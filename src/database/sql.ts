import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { DatabaseActivity } from './database-activity';

/**
 * A SQL statement the service runs. Prepared statements are named after their text, so that a
 * changed statement can never be mistaken for the old one a connection has prepared.
 */
export class Statement<Row extends QueryResultRow> {
  /** undefined: planned for each call (a statement whose best plan depends on its values). */
  readonly name: string | undefined;
  declare readonly row?: Row;

  constructor(
    readonly text: string,
    prepared: boolean,
  ) {
    this.name = prepared ? `s_${createHash('sha256').update(text).digest('hex').slice(0, 24)}` : undefined;
  }
}

/** A statement prepared once per connection (most of them: planned once, run many times). */
export const statement = <Row extends QueryResultRow = QueryResultRow>(text: string) => new Statement<Row>(text, true);

/** A statement planned on every call, for filters whose best plan depends on the values given. */
export const adHocStatement = <Row extends QueryResultRow = QueryResultRow>(text: string) => new Statement<Row>(text, false);

/**
 * The one way the service runs SQL of its own: on the pool, or, inside a transaction, on the
 * transaction's connection. (TypeORM's entity methods do the plain inserts and lookups.)
 */
@Injectable()
export class Sql {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly activity: DatabaseActivity,
  ) {}

  /** The pg pool behind TypeORM (its size and waiting clients are metrics). */
  get pool(): Pool {
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }

  /** The rows of `statement` run with `values`, within `manager`'s transaction when given. */
  async rows<Row extends QueryResultRow>(statement: Statement<Row>, values: unknown[] = [], manager?: EntityManager): Promise<Row[]> {
    const runner: Pool | PoolClient = manager?.queryRunner ? ((await manager.queryRunner.connect()) as PoolClient) : this.pool;
    try {
      const result = await runner.query<Row>({ name: statement.name, text: statement.text, values });
      this.activity.statementEnded();
      return result.rows;
    } catch (error) {
      this.activity.statementEnded(error);
      throw error;
    }
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
