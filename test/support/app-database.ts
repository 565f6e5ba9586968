import type { INestApplication } from '@nestjs/common';
import { DataSource, type QueryRunner } from 'typeorm';

export type { QueryRunner };

/** What a test's statements run on: the app's DataSource, a transaction's entity manager, or a query runner. */
export interface Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query<T = any>(text: string, values?: unknown[]): Promise<T>;
}

/** The app's own DataSource: tests reach their database as the app does, and their statements count for DatabaseActivity. */
export function appDatabase(app: INestApplication): DataSource {
  return app.get(DataSource);
}
