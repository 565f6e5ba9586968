import { AuditRepository } from '../audit/audit.repository';
import { AuditRecord } from '../audit/audit-record.entity';
import { AuditTrail } from '../audit/audit-trail';
import { ApiKey } from '../auth/api-key.entity';
import { AuthRepository } from '../auth/auth.repository';
import { PartnerAccount } from '../auth/partner-account.entity';
import { PartnerKeysService } from '../auth/partner-keys.service';
import { ReviewerAccount } from '../auth/reviewer-account.entity';
import type { AdminActor } from '../auth/reviewers.service';
import { ReviewersService } from '../auth/reviewers.service';
import { ApiError } from '../common/error-catalogue';
import type { AuthConfig, DatabaseConfig } from '../config/configuration';
import { StartupError } from '../config/startup-error';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../database/data-source-options';
import { EmbeddedDatabase } from '../database/embedded-database';
import { Sql } from '../database/sql';
import { DEMO_SOURCE, LOCAL_ADMIN_NAME } from './demo-data.service';

const ACTOR: AdminActor = { id: null, name: 'npm run demo:keys', role: 'admin' };

export interface DemoKeys {
  apiKey: string;
  adminKey: string;
}

/** Both keys in one transaction, so a failure leaves no key active that nobody was shown; the server need not be running. */
export async function issueDemoKeys(database: DatabaseConfig, authSettings: AuthConfig): Promise<DemoKeys> {
  if (database.url) {
    throw new StartupError('demo keys exist only in the zero-setup mode (DATABASE_URL is set): issue keys through the admin API');
  }
  const dataDir = database.embeddedDataDir;
  if (!EmbeddedDatabase.hasCluster(dataDir)) throw noDemoData(dataDir);
  const runningUrl = await EmbeddedDatabase.runningOn(dataDir);
  const embedded = runningUrl ? null : await EmbeddedDatabase.start({ dataDir });
  const settings = { url: runningUrl ?? embedded!.url, poolSize: 1, connectTimeoutMs: database.connectTimeoutMs, statementTimeoutMs: database.statementTimeoutMs };
  const dataSource = await new DataSource(dataSourceOptions(settings, [PartnerAccount, ApiKey, ReviewerAccount, AuditRecord])).initialize().catch(async (error: unknown) => {
    await embedded?.stop();
    throw error;
  });
  try {
    const sql = new Sql(dataSource);
    const auth = new AuthRepository(sql, dataSource.getRepository(PartnerAccount), dataSource.getRepository(ApiKey), dataSource.getRepository(ReviewerAccount));
    const partnerKeys = new PartnerKeysService(auth);
    const reviewers = new ReviewersService(auth, authSettings);
    // The local admin account keeps its name (decisions and the audit trail refer to it); its key is
    // replaced. Should there be none (ADMIN_MASTER_KEY was set at the first start), it is created.
    return await new AuditTrail(new AuditRepository(sql, dataSource.getRepository(AuditRecord)), sql).record(ACTOR, async (tx) => {
      const partner = await partnerKeys.requirePartner(tx, DEMO_SOURCE).catch((error: unknown) => {
        throw error instanceof ApiError ? noDemoData(dataDir) : error;
      });
      const { keyId, apiKey } = await partnerKeys.issueKey(tx, partner.id);
      const admin = await reviewers.replaceAdminKey(tx, LOCAL_ADMIN_NAME);
      if (!admin) throw new StartupError(`the reviewer account ${LOCAL_ADMIN_NAME} is not an admin: use the admin API to issue keys`);
      return {
        result: { apiKey, adminKey: admin.apiKey },
        audit: {
          action: 'demo.keys_issued',
          target: `partner:${DEMO_SOURCE}`,
          details: { key_id: Number(keyId), reviewer_id: Number(admin.id), reviewer_prefix: admin.prefix },
        },
      };
    });
  } finally {
    await dataSource.destroy();
    await embedded?.stop();
  }
}

function noDemoData(dataDir: string): StartupError {
  return new StartupError(`there is no demo data in ${dataDir}: start the server once (npm start) to create it`);
}
