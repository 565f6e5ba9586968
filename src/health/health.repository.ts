import { Inject, Injectable } from '@nestjs/common';
import { databaseConfig, type DatabaseConfig } from '../config/configuration';
import { Sql, sql } from '../database/sql';

/** Readiness's SQL: whether the primary takes writes, and whether the pool has a connection free. */
@Injectable()
export class HealthRepository {
  constructor(
    private readonly sql: Sql,
    @Inject(databaseConfig.KEY) private readonly database: DatabaseConfig,
  ) {}

  async writable(): Promise<boolean> {
    const [{ writable }] = await this.sql.rows(
      sql<{ writable: boolean }>`SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable`,
    );
    return writable;
  }

  get poolFull(): boolean {
    const pool = this.sql.pool;
    return pool.idleCount === 0 && pool.totalCount >= this.database.poolSize;
  }
}
