import type { DataSource } from 'typeorm';
import { generateKey } from '../../src/auth/key-hashing';

/**
 * Test data written straight to the tables, so the partner-API suites do not depend on
 * the admin API they do not test.
 */
export class Fixtures {
  private sequence = 0;

  constructor(private readonly dataSource: DataSource) {}

  async partner(source = `partner-${++this.sequence}`): Promise<{ source: string; apiKey: string; keyId: string }> {
    const [{ id }] = await this.dataSource.query('INSERT INTO partners (source, name) VALUES ($1, $2) RETURNING id', [
      source,
      `${source} Inc.`,
    ]);
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
    const [{ id }] = await this.dataSource.query(
      `INSERT INTO markets (source, slug, status, verdict, confidence, reasoning, resolved_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
      [
        source,
        slug,
        status,
        resolved ? 'YES' : null,
        resolved ? 'HIGH' : null,
        resolved ? 'The outcome was confirmed by the official source.' : null,
        resolved ? '2026-11-01T12:00:00.000Z' : null,
      ],
    );
    const proofCount = options.proofs ?? (resolved ? 2 : 0);
    for (let position = 0; position < proofCount; position++) {
      await this.dataSource.query('INSERT INTO proofs (market_id, position, chain, tx_hash) VALUES ($1, $2, $3, $4)', [
        id,
        position,
        position % 2 === 0 ? 'base' : 'bsc',
        `0x${String(position).repeat(64)}`,
      ]);
    }
    return { id: Number(id), slug };
  }
}
