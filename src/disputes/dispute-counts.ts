import type { EntityManager } from 'typeorm';
import type { DisputeStatus } from './dispute-state';

// Read off ix_disputes_status_created alone: no row of the dispute itself is needed.
const DISPUTE_COUNTS_SQL = 'SELECT status, count(*)::int AS count FROM disputes GROUP BY status';

/** How many disputes are in each status (the back office's queue header). */
export async function countDisputesByStatus(manager: EntityManager): Promise<Record<DisputeStatus, number>> {
  const rows: { status: DisputeStatus; count: number }[] = await manager.query(DISPUTE_COUNTS_SQL);
  const counts: Record<DisputeStatus, number> = { open: 0, closed: 0 };
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}
