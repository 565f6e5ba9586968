import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options';
import { UNSYNCHRONIZED_INDEXES } from '../src/database/unsynchronized-indexes';
import { ENTITIES } from '../src/entities';
import { startTestApp, type TestApp } from './support/test-app';

/** What TypeORM's schema diff (`typeorm schema:log`, `migration:generate --check`) would run to align `dataSource`'s database with its entities. */
async function drift(dataSource: DataSource): Promise<string[]> {
  const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
  return upQueries.map((query) => query.query);
}

const declaredUnsynchronized = (dataSource: DataSource) =>
  dataSource.entityMetadatas.flatMap((entity) => entity.indices.filter((index) => !index.synchronize).map((index) => index.name)).sort();

describe('the entities are the declared schema', () => {
  let t: TestApp;
  let cli: DataSource;

  beforeAll(async () => {
    // Migrated at start, by the real migrations, as production is.
    t = await startTestApp();
    cli = await new DataSource(dataSourceOptions({ url: t.databaseUrl, poolSize: 1, connectTimeoutMs: 5000, statementTimeoutMs: 5000 }, ENTITIES)).initialize();
  });

  afterAll(async () => {
    await cli?.destroy();
    await t?.close();
  });

  it("has no drift between the app's entities and the migrated database", async () => {
    expect(await drift(t.dataSource)).toEqual([]);
  });

  it("lists in ormconfig.ts's ENTITIES exactly the entities the modules register, with no drift either", async () => {
    const names = (dataSource: DataSource) => dataSource.entityMetadatas.map((entity) => entity.tableName).sort();
    expect(names(cli)).toEqual(names(t.dataSource));
    expect(await drift(cli)).toEqual([]);
  });

  it('holds the indexes metadata cannot express to their one list, as PostgreSQL has them', async () => {
    expect(declaredUnsynchronized(t.dataSource)).toEqual(Object.keys(UNSYNCHRONIZED_INDEXES).sort());
    const rows = await t.dataSource.query<{ indexname: string; indexdef: string }[]>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1)',
      [Object.keys(UNSYNCHRONIZED_INDEXES)],
    );
    expect(Object.fromEntries(rows.map((row) => [row.indexname, row.indexdef]))).toEqual(UNSYNCHRONIZED_INDEXES);
  });

  it('declares one dispute per market as the unique constraint the database enforces', async () => {
    const dispute = t.dataSource.getMetadata('disputes');
    expect(dispute.uniques.map((unique) => [unique.name, unique.columns.map((column) => column.databaseName)])).toEqual([['uq_disputes_market_id', ['market_id']]]);
    const [constraint] = await t.dataSource.query<{ definition: string }[]>(
      "SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'uq_disputes_market_id'",
    );
    expect(constraint.definition).toBe('UNIQUE (market_id)');
  });

  it('sees drift when the database moves away from the entities (the check can fail)', async () => {
    await cli.query('ALTER TABLE disputes DROP CONSTRAINT uq_disputes_market_id');
    await cli.query('ALTER TABLE markets ADD COLUMN note text');
    try {
      const queries = (await drift(cli)).join('\n');
      // TypeORM names the constraint it would add from the column (UQ_<hash>): the diff sees the rule gone, not its name.
      expect(queries).toMatch(/ALTER TABLE "disputes" ADD CONSTRAINT "\w+" UNIQUE \("market_id"\)/);
      expect(queries).toContain('ALTER TABLE "markets" DROP COLUMN "note"');
    } finally {
      await cli.query('ALTER TABLE markets DROP COLUMN note');
      await cli.query('ALTER TABLE disputes ADD CONSTRAINT uq_disputes_market_id UNIQUE (market_id)');
    }
    expect(await drift(cli)).toEqual([]);
  });
});
