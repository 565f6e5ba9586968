import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, QueryResultRow } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';

/**
 * Direct access to the pg pool behind TypeORM, for the few hot queries that run as named
 * (prepared) statements: PostgreSQL plans them once per connection instead of on every call.
 */
@Injectable()
export class SqlPool {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get pool(): Pool {
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }

  async prepared<Row extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<Row[]> {
    const result = await this.pool.query<Row>({ name, text, values });
    return result.rows;
  }
}
