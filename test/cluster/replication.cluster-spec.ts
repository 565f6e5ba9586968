import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { cluster, connect, query } from './support/cluster';

const VISIBLE_WITHIN_MS = 1_000;

/** The replica is a hot standby fed by streaming replication from the primary. */
describe('cluster: streaming replica', () => {
  it('shows a write on the primary within a second, and pg_stat_replication reports it streaming', async () => {
    const { roles } = cluster();
    const replica = roles.replica!;
    await query({ node: roles.primary, database: 'postgres' }, 'CREATE TABLE IF NOT EXISTS cluster_probe (token text PRIMARY KEY)');
    const token = randomUUID();
    const reader = await connect({ node: replica, database: 'postgres' });
    try {
      const [{ lsn }] = await query<{ lsn: string }>(
        { node: roles.primary, database: 'postgres' },
        'WITH written AS (INSERT INTO cluster_probe VALUES ($1)) SELECT pg_current_wal_lsn()::text AS lsn',
        [token],
      );
      const writtenAt = performance.now();
      let seenAfterMs: number | null = null;
      while (performance.now() - writtenAt < VISIBLE_WITHIN_MS * 3) {
        const { rowCount } = await reader.query('SELECT 1 FROM cluster_probe WHERE token = $1', [token]);
        if (rowCount === 1) {
          seenAfterMs = performance.now() - writtenAt;
          break;
        }
        await sleep(10);
      }
      expect(seenAfterMs).not.toBeNull();
      expect(seenAfterMs!).toBeLessThanOrEqual(VISIBLE_WITHIN_MS);

      const [standby] = await query<{ application_name: string; state: string; replayed: boolean }>(
        { node: roles.primary, database: 'postgres' },
        'SELECT application_name, state, replay_lsn >= $1::pg_lsn AS replayed FROM pg_stat_replication',
        [lsn],
      );
      expect(standby).toEqual({ application_name: expect.stringMatching(new RegExp(`-${replica}$`)), state: 'streaming', replayed: true });
    } finally {
      await reader.end();
    }
  });

  it('is read-only: in recovery, and a write there fails with SQLSTATE 25006', async () => {
    const replica = cluster().roles.replica!;
    const [{ recovering }] = await query<{ recovering: boolean }>({ node: replica, database: 'postgres' }, 'SELECT pg_is_in_recovery() AS recovering');
    expect(recovering).toBe(true);
    const write = query({ node: replica, database: 'postgres' }, "INSERT INTO cluster_probe VALUES ('on-the-replica')");
    await expect(write).rejects.toMatchObject({ code: '25006' });
  });
});
