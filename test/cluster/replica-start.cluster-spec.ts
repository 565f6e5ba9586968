import { afterAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ADMIN_MASTER_KEY, ServerProcess } from '../faults/support/server-process';
import { cluster, primary, query } from './support/cluster';
import { disputeBody, publicPath, seedResolvedMarkets } from './support/markets';

const SERVICE_UNAVAILABLE = { code: 5030, msg: 'service unavailable', detail: 'service unavailable' };

/** An address that moves, as a failover moves the primary's: its connections are dropped when it does. */
class MovableAddress {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  port = 0;

  constructor(private target: number) {
    this.server = createServer((client) => {
      const upstream = createConnection({ host: '127.0.0.1', port: this.target });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  moveTo(target: number): void {
    this.target = target;
    for (const socket of this.sockets) socket.destroy();
  }

  close(): void {
    this.moveTo(0);
    this.server.close();
  }
}

const nodePort = (role: 'primary' | 'replica') => cluster().postgres[cluster().roles[role]!].port;

async function replicaHasReplayed(text: string, values: unknown[] = []): Promise<void> {
  const replica = { node: cluster().roles.replica!, database: 'oracle' };
  for (let tries = 0; tries < 100; tries++) {
    if ((await query(replica, text, values)).length > 0) return;
    await sleep(50);
  }
  throw new Error(`the replica never showed: ${text}`);
}

/** The service's own migrations command (dist/migrate.js) on the primary. */
const migrateOnPrimary = (command: 'run' | 'revert') =>
  promisify(execFile)(process.execPath, [fileURLToPath(new URL('../../dist/migrate.js', import.meta.url)), command], {
    env: { ...process.env, DATABASE_URL: `postgres://oracle@127.0.0.1:${nodePort('primary')}/oracle` },
  });

/** Contract §9: a standby never stops an instance. Both cases run the built server against the replica, then move its address to the primary. */
describe('an instance whose database is a standby at start', () => {
  const started: { server?: ServerProcess; address?: MovableAddress }[] = [];

  afterAll(async () => {
    for (const { server, address } of started) {
      await server?.stop();
      address?.close();
    }
  });

  async function startOnReplica(name: string) {
    const address = await new MovableAddress(nodePort('replica')).listen();
    const entry: (typeof started)[number] = { address };
    started.push(entry);
    entry.server = await ServerProcess.start({
      databaseUrl: `postgres://oracle@127.0.0.1:${address.port}/oracle`,
      name,
      env: { ADMIN_MASTER_KEY, LOG_LEVEL: 'info' },
      waitFor: 'live',
    });
    return { server: entry.server, address };
  }

  const readiness = async (server: ServerProcess) => (await server.http.request('GET', '/health/ready')).status;

  it('with its schema current, serves reads, answers writes 5030 and is not ready; once a primary answers, it goes on without a restart', async () => {
    const [market] = await seedResolvedMarkets(1);
    await replicaHasReplayed('SELECT 1 FROM markets WHERE id = $1', [market.id]);
    const { server, address } = await startOnReplica('on-a-standby');
    const apiKey = cluster().keys.partnerKey!;
    expect(await readiness(server)).toBe(503);
    expect((await server.http.request('GET', publicPath(market.slug))).body).toMatchObject({ code: 0, data: { markets: [{ id: market.id, status: 'resolved' }] } });
    const filing = () => server.http.request('POST', '/oracle/markets/dispute/submit', { headers: { 'x-api-key': apiKey }, body: disputeBody(market.id) });
    expect((await filing()).body).toEqual(SERVICE_UNAVAILABLE);
    await server.linesMatching((line) => line.includes('serving reads without migrating'));

    address.moveTo(nodePort('primary'));
    await server.waitReady(15_000);
    expect((await filing()).body).toMatchObject({ code: 0, data: { dispute_id: expect.any(Number) } });
    expect(server.running).toBe(true);
    // Its schema retry, up to SCHEMA_RETRY_MS after the move, would migrate the primary again under the next case's revert.
    await server.stop();
  });

  it('with migrations pending, serves nothing (5030, not ready), and migrates once a primary answers', async () => {
    const [market] = await seedResolvedMarkets(1);
    const [{ name: last }] = await query<{ name: string }>(primary(), 'SELECT name FROM schema_migrations ORDER BY id DESC LIMIT 1');
    await migrateOnPrimary('revert');
    try {
      await replicaHasReplayed(`SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM schema_migrations WHERE name = $1)`, [last]);
      const { server, address } = await startOnReplica('on-a-standby-behind');
      expect(await readiness(server)).toBe(503);
      await server.linesMatching((line) => line.includes('has migrations to apply'));
      expect((await server.http.request('GET', publicPath(market.slug))).body).toEqual(SERVICE_UNAVAILABLE);

      address.moveTo(nodePort('primary'));
      await server.waitReady(15_000);
      expect(await query(primary(), 'SELECT 1 FROM schema_migrations WHERE name = $1', [last])).toHaveLength(1);
      expect((await server.http.request('GET', publicPath(market.slug))).body).toMatchObject({ code: 0, data: { markets: [{ id: market.id }] } });
    } finally {
      await migrateOnPrimary('run');
    }
  });
});
