import { randomBytes } from 'node:crypto';
import { primary, query } from './cluster';

export interface SeededMarket {
  id: number;
  slug: string;
}

/**
 * `count` resolved markets of the partner `demo` with one proof each, written straight to the
 * primary (the admin API would take two requests per market).
 */
export async function seedResolvedMarkets(count: number): Promise<SeededMarket[]> {
  const prefix = `load-${randomBytes(4).toString('hex')}-`;
  const rows = await query<{ id: string; slug: string }>(
    primary(),
    `WITH market AS (
       INSERT INTO markets (source, slug, status, verdict, confidence, reasoning, resolved_at)
       SELECT 'demo', $1 || g, 'resolved', 'YES', 'HIGH', 'The outcome was confirmed by the official source.', '2026-11-01T12:00:00Z'
         FROM generate_series(1, $2::int) g
       RETURNING id, slug),
     proof AS (
       INSERT INTO proofs (market_id, position, chain, tx_hash) SELECT id, 0, 'base', '0x' || repeat('1', 64) FROM market)
     SELECT id, slug FROM market ORDER BY id`,
    [prefix, count],
  );
  return rows.map((row) => ({ id: Number(row.id), slug: row.slug }));
}

export const publicPath = (slug: string): string => `/oracle/markets/public?slug=${encodeURIComponent(slug)}&source=demo`;

/** A valid submit_dispute body for a market. */
export function disputeBody(marketId: number): Record<string, unknown> {
  return {
    market_id: marketId,
    submitter_id: `user-${marketId}`,
    submitter_name: 'Cluster Test',
    submitter_selection: 'NO',
    reason_text: 'The official source published a correction.',
    submitted_at: '2026-11-21T10:00:00Z',
  };
}

/** Of the disputes `ids`, those present on the current primary. */
export async function disputesPresent(ids: number[]): Promise<Set<number>> {
  const rows = await query<{ id: string }>(primary(), 'SELECT id FROM disputes WHERE id = ANY($1::bigint[])', [ids]);
  return new Set(rows.map((row) => Number(row.id)));
}
