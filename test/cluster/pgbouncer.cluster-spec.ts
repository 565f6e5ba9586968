import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { pgbouncerAdmin } from '../../scripts/cluster/index.mjs';
import { cluster, clusterDirectory, connect, urls } from './support/cluster';

const admin = (command: string) => pgbouncerAdmin(clusterDirectory(), command);

/** PgBouncer pools transactions, not sessions, and sends each database name to its server. */
describe('cluster: PgBouncer', () => {
  it('is configured for transaction pooling, retrying a failed server login after 1 s', async () => {
    const config = new Map((await admin('SHOW CONFIG')).map((row) => [row.key, row.value]));
    expect(config.get('pool_mode')).toBe('transaction');
    expect(config.get('server_login_retry')).toBe('1');
  });

  it('sends oracle to the primary and oracle_read to the replica', async () => {
    const { ports, roles, postgres } = cluster();
    const databases = new Map((await admin('SHOW DATABASES')).map((row) => [row.name, row]));
    expect(databases.get('oracle')).toMatchObject({ host: '127.0.0.1', port: postgres[roles.primary].port, database: 'oracle' });
    expect(databases.get('oracle_read')).toMatchObject({ host: '127.0.0.1', port: postgres[roles.replica!].port, database: 'oracle' });
    expect(ports.pgbouncer).not.toBe(postgres[roles.primary].port);
    for (const [url, recovering] of [[urls().database, false], [urls().databaseRead, true]] as const) {
      const client = await connect({ url });
      try {
        const { rows } = await client.query('SELECT pg_is_in_recovery() AS recovering');
        expect(rows[0].recovering).toBe(recovering);
      } finally {
        await client.end();
      }
    }
  });

  it('links a client to a server connection only while its transaction runs', async () => {
    const name = `cluster-test-${randomUUID().slice(0, 8)}`;
    const client = await connect({ url: urls().database }, name);
    const link = async () => {
      const row = (await admin('SHOW CLIENTS')).find((candidate) => candidate.application_name === name);
      if (!row) throw new Error(`PgBouncer does not list the client ${name}`);
      return row.link !== '' && row.link !== null;
    };
    try {
      await client.query('SELECT 1');
      expect(await link()).toBe(false);
      await client.query('BEGIN');
      await client.query('SELECT 1');
      expect(await link()).toBe(true);
      await client.query('COMMIT');
      expect(await link()).toBe(false);
      const pools = (await admin('SHOW POOLS')).filter((row) => row.database === 'oracle' || row.database === 'oracle_read');
      expect(pools.map((row) => row.pool_mode)).toEqual(pools.map(() => 'transaction'));
      expect(pools.some((row) => row.database === 'oracle')).toBe(true);
    } finally {
      await client.end();
    }
  });
});
