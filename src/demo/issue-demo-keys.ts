// `npm run demo:keys`: a new API key for the demo partner and a new key for the `local-admin`
// account, on the zero-setup database, whether its server is running or not. The keys shown
// at the first start are shown only once; this is how to get working ones later.
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { issuePartnerKey } from '../auth/partner-keys.service';
import type { AdminActor } from '../auth/reviewers.service';
import { generateKey } from '../auth/key-hashing';
import { skeletonIgnoringCase } from '../common/confusable-skeleton';
import { validateEnvironment } from '../config/environment';
import { StartupError, startupNotice } from '../config/startup-error';
import { dataSourceOptions } from '../database/data-source-options';
import { EmbeddedDatabase } from '../database/embedded-database';
import { DatabaseActivity } from '../database/database-activity';
import { Sql, statement } from '../database/sql';
import { AuditService } from '../review/audit.service';
import { DEMO_SOURCE, LOCAL_ADMIN_NAME } from './demo-data.service';
import { printDemoKeys } from './demo-keys-notice';

const ACTOR: AdminActor = { id: null, name: 'npm run demo:keys', role: 'admin' };
const DEMO_PARTNER = statement<{ id: string }>('SELECT id FROM partners WHERE source = $1');
// The local admin account keeps its name (decisions and the audit trail refer to it); its key is
// replaced. Should there be none (ADMIN_MASTER_KEY was set at the first start), it is created.
const REPLACE_ADMIN_KEY = statement<{ id: string }>(`
  UPDATE reviewers SET key_hash = $2, prefix = $3, revoked_at = NULL WHERE name = $1 AND role = 'admin' RETURNING id`);
// No conflict target: names are unique by expression indexes (lower(name), the skeleton), which
// ON CONFLICT (name) does not name (it failed whatever the data).
const CREATE_ADMIN = statement<{ id: string }>(`
  INSERT INTO reviewers (name, role, key_hash, prefix, name_skeleton) VALUES ($1, 'admin', $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id`);

async function issueDemoKeys(): Promise<void> {
  const environment = validateEnvironment(process.env);
  if (environment.DATABASE_URL) {
    throw new StartupError('demo keys exist only in the zero-setup mode (DATABASE_URL is set): issue keys through the admin API');
  }
  const dataDir = environment.EMBEDDED_DATA_DIR;
  if (!EmbeddedDatabase.hasCluster(dataDir)) throw noDemoData(dataDir);
  const runningUrl = await EmbeddedDatabase.runningOn(dataDir);
  const embedded = runningUrl ? null : await EmbeddedDatabase.start({ dataDir });
  const dataSource = new DataSource(
    dataSourceOptions({
      url: runningUrl ?? embedded!.url,
      poolSize: 1,
      connectTimeoutMs: environment.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: environment.DB_STATEMENT_TIMEOUT_MS,
    }),
  );
  try {
    await dataSource.initialize();
    const sql = new Sql(dataSource, new DatabaseActivity(dataSource, environment.DB_CONNECT_TIMEOUT_MS));
    const audit = new AuditService(sql);
    const apiKey = await audit.record(ACTOR, async (manager) => {
      const [partner] = await sql.rows(DEMO_PARTNER, [DEMO_SOURCE], manager);
      if (!partner) throw noDemoData(dataDir);
      const { keyId, apiKey } = await issuePartnerKey(manager, partner.id);
      return { result: apiKey, audit: { action: 'key.issued', target: `partner:${DEMO_SOURCE}`, details: { key_id: Number(keyId) } } };
    });
    const adminKey = await audit.record(ACTOR, async (manager) => {
      const key = generateKey('admin');
      const values = [LOCAL_ADMIN_NAME, key.hash, key.prefix];
      const [account] = (await sql.rows(REPLACE_ADMIN_KEY, values, manager)).concat(
        await sql.rows(CREATE_ADMIN, [...values, skeletonIgnoringCase(LOCAL_ADMIN_NAME)], manager),
      );
      // Names are unique (uq_reviewers_name): the name is a reviewer's, not an admin's.
      if (!account) throw new StartupError(`the reviewer account ${LOCAL_ADMIN_NAME} is not an admin: use the admin API to issue keys`);
      return {
        result: key.key,
        audit: { action: 'reviewer.key_replaced', target: `reviewer:${account.id}`, details: { name: LOCAL_ADMIN_NAME, prefix: key.prefix } },
      };
    });
    const keys = { apiKey, adminKey };
    printDemoKeys(keys, 'New demo keys.');
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
  }
}

function noDemoData(dataDir: string): StartupError {
  return new StartupError(`there is no demo data in ${dataDir}: start the server once (npm start) to create it`);
}

issueDemoKeys().catch((error: unknown) => {
  const message = error instanceof StartupError ? error.message : `demo keys could not be issued: ${error instanceof Error ? error.message : String(error)}`;
  startupNotice(message);
  process.exit(1);
});
