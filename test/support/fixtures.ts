import type { Queryable } from './app-database';
import { generateKey } from '../../src/auth/key-hashing';
import type { ChangeType } from '../../src/changes/change-event';
import { APPENDED_EVENT_ID } from '../../src/changes/change-log.functions';
import { skeleton } from '../../src/common/confusable-skeleton';

/** Tells an application that (source, slug) changed, as the service's own writes do (ChangeLog.written). */
export type Heard = (source: string, slug: string, eventId: string) => Promise<void>;

/**
 * Test data written straight to the tables, so the partner-API suites do not depend on
 * the admin API they do not test (skeletons included, as the service writes them).
 *
 * A market's writes append their event to the change log, as the service's do, and with `heard`
 * return only once the application has it (ChangeLog.written): otherwise the event could reach
 * its cache just after a test's first read began, and that read would not be cached
 * (fixturesOf in test-app.ts).
 */
export class Fixtures {
  private sequence = 0;

  constructor(
    private readonly dataSource: Queryable & { transaction<T>(work: (manager: Queryable) => Promise<T>): Promise<T> },
    private readonly heard?: Heard,
  ) {}

  async partner(source = `partner-${++this.sequence}`): Promise<{ source: string; apiKey: string; keyId: string }> {
    const name = `${source} Inc.`;
    const [{ id }] = await this.dataSource.query(
      'INSERT INTO partners (source, name, source_skeleton, name_skeleton) VALUES ($1, $2, $3, $4) RETURNING id',
      [source, name, skeleton(source), skeleton(name)],
    );
    const key = generateKey('partner');
    const [{ id: keyId }] = await this.dataSource.query(
      'INSERT INTO api_keys (partner_id, key_hash, prefix) VALUES ($1, $2, $3) RETURNING id',
      [id, key.hash, key.prefix],
    );
    return { source, apiKey: key.key, keyId };
  }

  async market(
    source: string,
    options: { slug?: string; status?: 'monitoring' | 'resolved' | 'disputed' | 'closed'; proofs?: number } = {},
  ): Promise<{ id: number; slug: string }> {
    const slug = options.slug ?? `market-${++this.sequence}`;
    const status = options.status ?? 'resolved';
    const resolved = status !== 'monitoring';
    const proofCount = options.proofs ?? (resolved ? 2 : 0);
    const { id } = await this.change(source, slug, 'market.created', async (manager) => {
      const [market] = await manager.query(
        `INSERT INTO markets (source, slug, status, verdict, confidence, reasoning, resolved_at, slug_skeleton)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
        [
          source,
          slug,
          status,
          resolved ? 'YES' : null,
          resolved ? 'HIGH' : null,
          resolved ? 'The outcome was confirmed by the official source.' : null,
          resolved ? '2026-11-01T12:00:00.000Z' : null,
          skeleton(slug),
        ],
      );
      for (let position = 0; position < proofCount; position++) {
        await manager.query('INSERT INTO proofs (market_id, position, chain, tx_hash) VALUES ($1, $2, $3, $4)', [
          market.id,
          position,
          position % 2 === 0 ? 'base' : 'bsc',
          `0x${String(position).repeat(64)}`,
        ]);
      }
      return market as { id: string };
    });
    return { id: Number(id), slug };
  }

  /**
   * Changes the records of market (source, slug) with `work` and appends the change's event, in
   * one transaction, as a fix by hand should; returns once the application has it.
   */
  async change<T>(source: string, slug: string, type: ChangeType, work: (manager: Queryable) => Promise<T>): Promise<T> {
    const { result, eventId } = await this.dataSource.transaction(async (manager) => {
      const result = await work(manager);
      const [{ id }] = await manager.query(
        `WITH appended AS MATERIALIZED (SELECT append_market_event($1, m.id) FROM markets m WHERE m.source = $2 AND m.slug = $3)
         SELECT ${APPENDED_EVENT_ID} AS id FROM appended`,
        [type, source, slug],
      );
      return { result, eventId: id as string };
    });
    await this.heard?.(source, slug, eventId);
    return result;
  }
}
