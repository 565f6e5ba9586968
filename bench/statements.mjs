// `npm run bench:statements`: what TypeORM's query builders cost beside the same statement hand-written, for the
// filing's statements (docs/architecture.md, "Hand-tuned statements"). Each pair runs on one query runner in one
// transaction (rolled back), alternating in rounds; the figure is the Node process's CPU per statement, which the
// database's own time does not enter, and wall time beside it.
import { createRequire } from 'node:module';
import { applyMigrations, provisionDatabase, requireDist, withClient } from './db.mjs';
import { seed } from './seed.mjs';

const require = createRequire(import.meta.url);
const STATEMENTS = Number(process.env.BENCH_STATEMENTS || 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);

async function main() {
  require('reflect-metadata');
  const { DataSource } = require('typeorm');
  const database = await provisionDatabase();
  try {
    await applyMigrations(database.url);
    await seed(database.url, { markets: 5_000, log: () => undefined });
    const ids = await withClient(database.url, async (client) => (await client.query(`SELECT id FROM markets WHERE status = 'resolved' ORDER BY id LIMIT 1000`)).rows.map((row) => row.id));
    const { dataSourceOptions } = requireDist('database/data-source-options.js');
    const { ENTITIES } = requireDist('entities.js');
    const { Market } = requireDist('markets/market.entity.js');
    const { Dispute } = requireDist('disputes/dispute.entity.js');
    const dataSource = await new DataSource(dataSourceOptions({ url: database.url, poolSize: 1, connectTimeoutMs: 5000, statementTimeoutMs: 5000 }, ENTITIES)).initialize();
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    const markets = runner.manager.getRepository(Market);
    const disputes = runner.manager.getRepository(Dispute);
    const dispute = (i) => ({ marketId: ids[i % ids.length], status: 'open', submitterId: 'u', submitterName: 'n', submitterSelection: 'NO', reasonText: 'r', submittedAt: new Date() });
    const pairs = [
      ['lock the market', {
        'query builder': (i) => markets.findOne({ select: { id: true, source: true, slug: true, status: true, verdict: true }, where: { id: ids[i % ids.length] }, lock: { mode: 'pessimistic_write' } }),
        'hand-written': (i) => runner.query('SELECT id, source, slug, status, verdict FROM markets WHERE id = $1 FOR UPDATE', [ids[i % ids.length]], true),
      }],
      ['insert the dispute', {
        'query builder': (i) => disputes.createQueryBuilder().insert().values(dispute(i)).orIgnore().returning('id').updateEntity(false).execute(),
        'hand-written': (i) => {
          const d = dispute(i);
          return runner.query(
            `INSERT INTO disputes (market_id, status, submitter_id, submitter_name, submitter_selection, reason_text, submitted_at)
             VALUES ($1, 'open', $2, $3, $4, $5, $6) ON CONFLICT ON CONSTRAINT uq_disputes_market_id DO NOTHING RETURNING id`,
            [d.marketId, d.submitterId, d.submitterName, d.submitterSelection, d.reasonText, d.submittedAt], true);
        },
      }],
      ['move the market', {
        'query builder': (i) => markets.update({ id: ids[i % ids.length] }, { status: 'resolved' }),
        'hand-written': (i) => runner.query('UPDATE markets SET status = $1, updated_at = now() WHERE id = $2', ['resolved', ids[i % ids.length]], true),
      }],
    ];
    const results = new Map();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [statement, ways] of pairs) {
        for (const [way, run] of round % 2 === 0 ? Object.entries(ways) : Object.entries(ways).reverse()) {
          for (let i = 0; i < 200; i++) await run(i);
          const cpu = process.cpuUsage();
          const started = performance.now();
          for (let i = 0; i < STATEMENTS; i++) await run(i);
          const { user, system } = process.cpuUsage(cpu);
          const key = `${statement}\u0000${way}`;
          const totals = results.get(key) ?? { cpu: 0, wall: 0, count: 0 };
          results.set(key, { cpu: totals.cpu + user + system, wall: totals.wall + (performance.now() - started) * 1000, count: totals.count + STATEMENTS });
        }
      }
    }
    await runner.rollbackTransaction();
    await runner.release();
    await dataSource.destroy();
    console.log(`µs per statement, ${ROUNDS} rounds of ${STATEMENTS}, Node ${process.version}, PostgreSQL ${database.version}:`);
    for (const [statement, ways] of pairs) {
      const [builder, hand] = Object.keys(ways).map((way) => results.get(`${statement}\u0000${way}`));
      const per = ({ cpu, wall, count }) => `${(cpu / count).toFixed(0)} CPU, ${(wall / count).toFixed(0)} wall`;
      console.log(`  ${statement.padEnd(20)} query builder ${per(builder)}; hand-written ${per(hand)}; CPU ${(builder.cpu / hand.cpu).toFixed(2)}x`);
    }
  } finally {
    await database.cleanup();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
