import { DataSource } from 'typeorm';
import { issuePartnerKey } from '../auth/partner-keys.service';
import type { AdminActor } from '../auth/reviewers.service';
import { generateKey } from '../auth/key-hashing';
import { skeletonIgnoringCase } from '../common/confusable-skeleton';
import type { Environment } from '../config/environment';
import { StartupError } from '../config/startup-error';
import { dataSourceOptions } from '../database/data-source-options';
import { EmbeddedDatabase } from '../database/embedded-database';
import { DatabaseActivity } from '../database/database-activity';
import { Sql, statement } from '../database/sql';
import { AuditTrail } from '../audit/audit-trail';
import { DEMO_SOURCE, LOCAL_ADMIN_NAME } from './demo-data.service';

const ACTOR: AdminActor = { id: null, name: 'npm run demo:keys', role: 'admin' };
const DEMO_PARTNER = statement<{ id: string }>('SELECT id FROM partners WHERE source = $1');
// The local admin account keeps its name (decisions and the audit trail refer to it); its key is
// replaced. Should there be none (ADMIN_MASTER_KEY was set at the first start), it is created.
const REPLACE_ADMIN_KEY = statement<{ id: string }>(`
  UPDATE reviewers SET key_hash = $2, prefix = $3, revoked_at = NULL WHERE name = $1 AND role = 'admin' RETURNING id`);
// No conflict target: names are unique by expression indexes (lower(name), the skeleton).
const CREATE_ADMIN = statement<{ id: string }>(`
  INSERT INTO reviewers (name, role, key_hash, prefix, name_skeleton) VALUES ($1, 'admin', $2, $3, $4) ON CONFLICT DO NOTHING RETURNING id`);

export interface DemoKeys {
  apiKey: string;
  adminKey: string;
}

/**
 * A new API key for the demo partner and a new key for the `local-admin` account, on the
 * zero-setup database, whether its server is running or not: both in one transaction, so a
 * failure leaves no key active that nobody was shown.
 */
export async function issueDemoKeys(environment: Environment): Promise<DemoKeys> {
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
    return await new AuditTrail(sql).record(ACTOR, async (manager) => {
      const [partner] = await sql.rows(DEMO_PARTNER, [DEMO_SOURCE], manager);
      if (!partner) throw noDemoData(dataDir);
      const { keyId, apiKey } = await issuePartnerKey(manager, partner.id);
      const admin = generateKey('admin');
      const values = [LOCAL_ADMIN_NAME, admin.hash, admin.prefix];
      const [account] = (await sql.rows(REPLACE_ADMIN_KEY, values, manager)).concat(
        await sql.rows(CREATE_ADMIN, [...values, skeletonIgnoringCase(LOCAL_ADMIN_NAME)], manager),
      );
      // Names are unique: the name is a reviewer's, not an admin's.
      if (!account) throw new StartupError(`the reviewer account ${LOCAL_ADMIN_NAME} is not an admin: use the admin API to issue keys`);
      return {
        result: { apiKey, adminKey: admin.key },
        audit: {
          action: 'demo.keys_issued',
          target: `partner:${DEMO_SOURCE}`,
          details: { key_id: Number(keyId), reviewer_id: Number(account.id), reviewer_prefix: admin.prefix },
        },
      };
    });
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
  }
}

function noDemoData(dataDir: string): StartupError {
  return new StartupError(`there is no demo data in ${dataDir}: start the server once (npm start) to create it`);
}
