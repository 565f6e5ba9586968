import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { LIBRARY_SCHEMA_GRANTS, RUNTIME_GRANTS } from '../src/database/runtime-grants';
import { NO_RATE_LIMITS, startTestAppOn, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const MASTER = 'test-master-key-0123456789abcdef';

/**
 * The service as docs/operations.md deploys it: the schema's owner migrates (DATABASE_DIRECT_URL),
 * the service runs as a role of its own with only the grants it needs (DATABASE_URL), not as a
 * superuser. The audit trail is append-only against that role too.
 */
describe('the service on a role with the least grants', () => {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const owner = `oracle_owner_${suffix}`;
  const runtime = `oracle_app_${suffix}`;
  const database = `oracle_test_${suffix}`;
  const password = randomBytes(12).toString('hex');
  let server: pg.Client;
  let t: TestApp;
  let receiver: WebhookReceiver;
  const urlAs = (role: string) => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.username = role;
    url.password = password;
    url.pathname = `/${database}`;
    return url.toString();
  };

  beforeAll(async () => {
    server = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await server.connect();
    await server.query(`CREATE ROLE ${owner} LOGIN PASSWORD '${password}'`);
    await server.query(`CREATE ROLE ${runtime} LOGIN PASSWORD '${password}'`);
    await server.query(`CREATE DATABASE ${database} OWNER ${owner}`);
    await server.query(`GRANT CONNECT ON DATABASE ${database} TO ${runtime}`);
    receiver = await WebhookReceiver.start();
    t = await startTestAppOn(urlAs(runtime), { ...NO_RATE_LIMITS, ADMIN_MASTER_KEY: MASTER, DATABASE_DIRECT_URL: urlAs(owner), WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await server.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await server.query(`DROP ROLE IF EXISTS ${runtime}`);
    await server.query(`DROP ROLE IF EXISTS ${owner}`);
    await server.end();
  });

  it('serves every route family as that role: partner writes, admin writes, the feed, reads', async () => {
    const admin = (path: string, body: object) => t.http.post(path).set('authorization', `Bearer ${MASTER}`).send(body);
    const partner = await admin('/admin/partners', { source: 'least', name: 'Least Ltd' });
    const market = await admin('/admin/markets', { source: 'least', slug: 'least-market' });
    await admin(`/admin/markets/${market.body.data.id}/resolve`, { verdict: 'YES', confidence: 'HIGH', reasoning: 'r', proofs: [{ chain: 'base', tx_hash: '0x1' }] });
    const filed = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partner.body.data.api_key).set('idempotency-key', 'k1').send({
      market_id: market.body.data.id,
      submitter_id: 'u',
      submitter_name: 'U',
      submitter_selection: 'NO',
      reason_text: 'r',
    });
    const decided = await admin(`/admin/disputes/${filed.body.data.dispute_id}/decision`, { type: 'keep', reason_text: 'r' });
    const revoked = await t.http.delete(`/admin/partners/least/keys/${partner.body.data.key_id}`).set('authorization', `Bearer ${MASTER}`);
    expect([partner, market, filed, decided, revoked].map((answer) => answer.body.code)).toEqual([0, 0, 0, 0, 0]);
    const changes = await t.http.get('/oracle/markets/changes').set('x-api-key', (await admin('/admin/partners/least/keys', {})).body.data.api_key);
    expect(changes.body.data.changes.map((change: { type: string }) => change.type)).toEqual(['market.created', 'market.resolved', 'dispute.filed', 'dispute.decided']);
    expect((await t.http.get('/admin/audit').set('authorization', `Bearer ${MASTER}`)).body.code).toBe(0);
    expect((await t.http.get('/health/ready')).status).toBe(200);
    const [{ sessions }] = (await server.query(`SELECT array_agg(DISTINCT usename::text) AS sessions FROM pg_stat_activity WHERE datname = $1 AND application_name = 'settlement-oracle'`, [database])).rows;
    expect(sessions).toEqual([runtime]);
  });

  it('delivers webhooks as that role: the fan-out, pg-boss\'s queue and its workers', async () => {
    const admin = (path: string, body: object) => t.http.post(path).set('authorization', `Bearer ${MASTER}`).send(body);
    const created = await admin('/admin/partners/least/webhooks', { url: receiver.url('/least') });
    expect(created.body.code).toBe(0);
    expect((await admin('/admin/markets', { source: 'least', slug: 'hooked' })).body.code).toBe(0);
    const [delivered] = await receiver.waitFor(1);
    expect(new Webhook(created.body.data.secret).verify(delivered.body, delivered.headers)).toEqual(expect.objectContaining({ type: 'market.created' }));
    const [{ sessions }] = (await server.query(`SELECT array_agg(DISTINCT usename::text) AS sessions FROM pg_stat_activity WHERE datname = $1 AND application_name = 'settlement-oracle-webhooks'`, [database])).rows;
    expect(sessions).toEqual([runtime]);
  });

  it('has only the grants listed, and can neither change the audit trail nor the schema', async () => {
    const asRuntime = new pg.Client({ connectionString: urlAs(runtime) });
    await asRuntime.connect();
    try {
      const { rows } = await asRuntime.query(
        `SELECT table_schema, table_name, array_agg(privilege_type::text ORDER BY privilege_type) AS privileges FROM information_schema.role_table_grants
         WHERE grantee = current_user GROUP BY table_schema, table_name`,
      );
      expect(Object.fromEntries(rows.filter((row) => row.table_schema === 'public').map((row) => [row.table_name, row.privileges]))).toEqual(
        Object.fromEntries(Object.entries(RUNTIME_GRANTS).map(([table, privileges]) => [table, [...privileges].sort()])),
      );
      // pg-boss's schema (the webhook deliveries' queue): its rows, every table alike, no DDL.
      const { rows: queueTables } = await asRuntime.query("SELECT tablename FROM pg_tables WHERE schemaname = 'pgboss' ORDER BY tablename");
      expect(queueTables.length).toBeGreaterThan(0);
      expect(rows.filter((row) => row.table_schema !== 'public')).toEqual(
        expect.arrayContaining(queueTables.map(({ tablename }) => ({ table_schema: 'pgboss', table_name: tablename, privileges: [...LIBRARY_SCHEMA_GRANTS].sort() }))),
      );
      expect(rows.filter((row) => row.table_schema !== 'public')).toHaveLength(queueTables.length);
      expect((await asRuntime.query('SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user')).rows).toEqual([
        { rolsuper: false, rolcreaterole: false, rolcreatedb: false },
      ]);
      for (const forbidden of ['TRUNCATE audit_events', 'DELETE FROM audit_events', "UPDATE audit_events SET actor = 'x'", 'DROP TABLE markets', 'ALTER TABLE markets ADD COLUMN x int', 'CREATE TABLE sneaky (id int)', 'CREATE TABLE pgboss.sneaky (id int)', 'DROP TABLE pgboss.job']) {
        await expect(asRuntime.query(forbidden)).rejects.toThrow(/permission denied|must be owner/);
      }
    } finally {
      await asRuntime.end();
    }
  });
});
