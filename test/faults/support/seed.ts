import { setTimeout as sleep } from 'node:timers/promises';
import type { DataSource } from 'typeorm';
import { Fixtures } from '../../support/fixtures';
import { runPool } from './http-client';

export interface SeededPartner {
  source: string;
  apiKey: string;
}

export interface SeededMarket {
  id: number;
  source: string;
  slug: string;
  apiKey: string;
}

/** `perPartner` resolved markets for each of `partners` new partners, through the e2e Fixtures. */
export async function seedResolvedMarkets(
  dataSource: DataSource,
  partners: number,
  perPartner: number,
): Promise<{ partners: SeededPartner[]; markets: SeededMarket[] }> {
  const fixtures = new Fixtures(dataSource);
  const seededPartners: SeededPartner[] = [];
  for (let p = 0; p < partners; p++) seededPartners.push(await fixtures.partner());
  const tasks = seededPartners.flatMap((partner) =>
    Array.from({ length: perPartner }, () => async (): Promise<SeededMarket> => {
      const market = await fixtures.market(partner.source, { status: 'resolved' });
      return { id: market.id, slug: market.slug, source: partner.source, apiKey: partner.apiKey };
    }),
  );
  const markets = await runPool(tasks, 4);
  return { partners: seededPartners, markets };
}

/** A valid submit_dispute body for a market. */
export function disputeBody(marketId: number, n = 0): Record<string, unknown> {
  return {
    market_id: marketId,
    submitter_id: `user-${marketId}-${n}`,
    submitter_name: `Submitter ${n}`,
    submitter_selection: 'NO',
    reason_text: 'The official source published a correction.',
    submitted_at: '2026-11-21T10:00:00Z',
  };
}

/**
 * Waits until no session of the servers under test (application_name `settlement-oracle`)
 * remains on the database: after a SIGKILL, PostgreSQL ends those sessions (rolling back what
 * they had open) once it notices the closed sockets.
 */
export async function waitForNoServerSessions(dataSource: DataSource, database: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const [{ count }] = await dataSource.query(
      `SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1 AND application_name = 'settlement-oracle'`,
      [database],
    );
    if (count === 0) return;
    if (performance.now() > deadline) throw new Error(`${count} server sessions still open after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Each market's status and number of disputes. */
export async function marketStates(dataSource: DataSource, ids: number[]): Promise<Map<number, { status: string; disputes: number }>> {
  const rows: { id: string; status: string; disputes: number }[] = await dataSource.query(
    `SELECT m.id, m.status, (SELECT count(*)::int FROM disputes d WHERE d.market_id = m.id) AS disputes
       FROM markets m WHERE m.id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(rows.map((row) => [Number(row.id), { status: row.status, disputes: row.disputes }]));
}
