// `npm run demo:keys`: a new API key for the demo partner and a new key for the `local-admin`
// account, on the zero-setup database, whether its server is running or not. The keys shown
// at the first start are shown only once; this is how to get working ones later.
import 'reflect-metadata';
import { DataSource, type EntityManager } from 'typeorm';
import { issuePartnerKey } from '../auth/partner-keys.service';
import { generateKey } from '../auth/key-hashing';
import { validateEnvironment } from '../config/environment';
import { StartupError, startupNotice } from '../config/startup-error';
import { dataSourceOptions } from '../database/data-source-options';
import { EmbeddedDatabase } from '../database/embedded-database';
import { DEMO_SOURCE, LOCAL_ADMIN_NAME } from './demo-data.service';
import { printDemoKeys } from './demo-keys-notice';

const ACTOR = 'npm run demo:keys';

async function issueDemoKeys(): Promise<void> {
  const environment = validateEnvironment(process.env);
  if (environment.DATABASE_URL) {
    throw new StartupError('demo keys exist only in the zero-setup mode (DATABASE_URL is set): issue keys through the admin API');
  }
  const dataDir = environment.EMBEDDED_DATA_DIR;
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
    const keys = await dataSource.transaction(async (manager) => {
      const [partner] = (await manager.query('SELECT id FROM partners WHERE source = $1', [DEMO_SOURCE])) as { id: string }[];
      if (!partner) throw new StartupError(`there is no demo data in ${dataDir}: start the server once (npm start) to create it`);
      const { keyId, apiKey } = await issuePartnerKey(manager, partner.id);
      const admin = generateKey('admin');
      // The local admin account keeps its name (decisions and the audit trail refer to it); its key is replaced.
      const [replaced] = (await manager.query(
        `UPDATE reviewers SET key_hash = $2, prefix = $3, revoked_at = NULL
         WHERE id = (SELECT min(id) FROM reviewers WHERE name = $1 AND role = 'admin') RETURNING id`,
        [LOCAL_ADMIN_NAME, admin.hash, admin.prefix],
      )) as { id: string }[];
      const [account] = replaced
        ? [replaced]
        : ((await manager.query(`INSERT INTO reviewers (name, role, key_hash, prefix) VALUES ($1, 'admin', $2, $3) RETURNING id`, [
            LOCAL_ADMIN_NAME,
            admin.hash,
            admin.prefix,
          ])) as { id: string }[]);
      const adminId = account.id;
      await audit(manager, 'key.issued', `partner:${DEMO_SOURCE}`, { key_id: Number(keyId) });
      await audit(manager, 'reviewer.key_replaced', `reviewer:${adminId}`, { name: LOCAL_ADMIN_NAME, prefix: admin.prefix });
      return { apiKey, adminKey: admin.key };
    });
    printDemoKeys(keys, 'New demo keys.');
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
  }
}

function audit(manager: EntityManager, action: string, target: string, details: Record<string, unknown>): Promise<unknown> {
  return manager.query('INSERT INTO audit_events (actor, action, target, details) VALUES ($1, $2, $3, $4)', [
    ACTOR,
    action,
    target,
    JSON.stringify({ actor_id: null, ...details }),
  ]);
}

issueDemoKeys().catch((error: unknown) => {
  const message = error instanceof StartupError ? error.message : `demo keys could not be issued: ${error instanceof Error ? error.message : String(error)}`;
  startupNotice(message);
  process.exit(1);
});
