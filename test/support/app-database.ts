import type { INestApplication } from '@nestjs/common';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DatabaseActivity } from '../../src/database/database-activity';
import { Sql } from '../../src/database/sql';

/** What a test's statements run on: the app's pool, or a connection taken from it. */
export interface Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query<T = any>(text: string, values?: unknown[]): Promise<T>;
}

/**
 * The app's own pool, as tests reach their database through it (the statements answered count
 * for DatabaseActivity, as the app's do): rows as TypeORM's query() answered them, an UPDATE or
 * DELETE as [rows, rowCount].
 */
export class AppDatabase implements Queryable {
  private readonly pool: Pool;
  private readonly activity: DatabaseActivity;

  constructor(app: INestApplication) {
    this.pool = app.get(Sql).pool;
    this.activity = app.get(DatabaseActivity);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query<T = any>(text: string, values?: unknown[]): Promise<T> {
    return this.run(this.pool, text, values);
  }

  /** `work` in one transaction on one of the app's connections. */
  async transaction<T>(work: (manager: Queryable) => Promise<T>): Promise<T> {
    const runner = this.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const result = await work(runner);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** One of the app's connections, held until released. */
  createQueryRunner(): QueryRunner {
    return new QueryRunner(this.pool, (runner, text, values) => this.run(runner, text, values));
  }

  /** @internal */
  async run<T>(runner: Pool | PoolClient, text: string, values?: unknown[]): Promise<T> {
    let result: QueryResult;
    try {
      result = await runner.query(text, values);
      this.activity.statementEnded();
    } catch (error) {
      this.activity.statementEnded(error);
      throw error;
    }
    return (result.command === 'UPDATE' || result.command === 'DELETE' ? [result.rows, result.rowCount] : result.rows) as T;
  }
}

export class QueryRunner implements Queryable {
  private client?: PoolClient;

  constructor(
    private readonly pool: Pool,
    private readonly runOn: (client: PoolClient, text: string, values?: unknown[]) => Promise<unknown>,
  ) {}

  async connect(): Promise<void> {
    this.client ??= await this.pool.connect();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async query<T = any>(text: string, values?: unknown[]): Promise<T> {
    await this.connect();
    return (await this.runOn(this.client!, text, values)) as T;
  }

  async startTransaction(): Promise<void> {
    await this.query('BEGIN');
  }

  async commitTransaction(): Promise<void> {
    await this.query('COMMIT');
  }

  async release(): Promise<void> {
    this.client?.release();
    this.client = undefined;
  }
}
