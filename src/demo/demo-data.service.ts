import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { PartnerKeysService } from '../auth/partner-keys.service';
import { ChangeLog } from '../changes/change-log';
import { ReviewersService } from '../auth/reviewers.service';
import { authConfig, type AuthConfig } from '../config/configuration';
import { DATABASE_LOCATION, type DatabaseLocation } from '../database/database.module';
import { Sql } from '../database/sql';
import { DisputeFiling } from '../disputes/dispute-filing';
import { DisputesService } from '../disputes/disputes.service';
import { MarketsService } from '../markets/markets.service';
import { DEMO_KEYS_HINT, printDemoKeys } from './demo-keys-notice';

export const DEMO_SOURCE = 'demo';
export const LOCAL_ADMIN_NAME = 'local-admin';

/** Zero-setup mode only (no DATABASE_URL), on the first start: demo data so the README's examples answer at once. */
@Injectable()
export class DemoDataService implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoData');
  private created: { apiKey: string; adminKey: string | null } | null = null;

  constructor(
    @Inject(DATABASE_LOCATION) private readonly location: DatabaseLocation,
    private readonly sql: Sql,
    @Inject(authConfig.KEY) private readonly config: AuthConfig,
    private readonly partnerKeys: PartnerKeysService,
    private readonly reviewers: ReviewersService,
    private readonly markets: MarketsService,
    private readonly filing: DisputeFiling,
    private readonly disputes: DisputesService,
    private readonly changes: ChangeLog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.location.embedded) return;
    if (await this.partnerKeys.hasPartners()) {
      this.logger.log(DEMO_KEYS_HINT);
      return;
    }
    const apiKey = await this.seed();
    const adminKey = await this.createLocalAdmin();
    this.created = { apiKey, adminKey };
  }

  /** Once the server listens, last: the keys of the demo data created at this start, if any. */
  showCreatedKeys(): void {
    if (this.created) printDemoKeys(this.created, 'Demo data created (first start of the embedded database).');
    this.created = null;
  }

  /** Without ADMIN_MASTER_KEY, a local admin account, so the back office works out of the box. */
  private async createLocalAdmin(): Promise<string | null> {
    if (this.config.adminMasterKey) return null;
    const { apiKey } = await this.sql.transaction((tx) =>
      this.reviewers.createReviewer(tx, LOCAL_ADMIN_NAME, 'admin'),
    );
    return apiKey;
  }

  private async seed(): Promise<string> {
    const { apiKey, keyId, partner } = await this.sql.transaction((tx) =>
      this.partnerKeys.createPartner(tx, DEMO_SOURCE, 'Demo Partner'),
    );
    const ids = new Map<string, string>();
    await this.sql.transaction(async (tx) => {
      const monitored = await this.markets.createMarket(tx, DEMO_SOURCE, 'will-it-snow-in-lisbon-2026');
      await this.changes.append(tx, 'market.created', monitored);
      for (const slug of ['btc-above-100k-2026', 'eth-etf-flows-positive-2026', 'fed-cuts-rates-2026']) {
        const id = await this.markets.createMarket(tx, DEMO_SOURCE, slug);
        await this.changes.append(tx, 'market.created', id);
        ids.set(slug, id);
        await this.markets.resolveMarket(tx, id, {
          verdict: 'YES',
          confidence: 'HIGH',
          reasoning: `Resolved from the settlement sources of ${slug}: the condition was met before the deadline.`,
          proofs: [
            { chain: 'base', tx_hash: `0x${slug.length.toString(16).padStart(2, '0')}${'ab'.repeat(31)}` },
            { chain: 'bsc', tx_hash: `0x${slug.length.toString(16).padStart(2, '0')}${'cd'.repeat(31)}` },
          ],
          resolvedAt: new Date('2026-11-01T12:00:00Z'),
        });
        await this.changes.append(tx, 'market.resolved', id);
      }
    });
    const partnerIdentity = { partnerId: partner.id, source: DEMO_SOURCE, keyId };
    for (const slug of ['eth-etf-flows-positive-2026', 'fed-cuts-rates-2026']) {
      const { answer } = await this.filing.submit(partnerIdentity, {
        market_id: Number(ids.get(slug)),
        submitter_id: 'demo-user-42',
        submitter_name: 'Demo User',
        submitter_selection: 'NO',
        reason_text: 'The official source published a correction after the resolution.',
        submitted_at: new Date('2026-11-02T09:30:00Z'),
      });
      if (answer instanceof Error) throw answer;
      if (slug === 'fed-cuts-rates-2026') {
        await this.sql.transaction(async (tx) => {
          await this.disputes.recordDecision(tx, String(answer.dispute_id), {
            type: 'override',
            reasonText: 'The correction is authoritative; the final outcome is NO.',
            decidedBy: 'demo-reviewer',
          });
          await this.changes.append(tx, 'dispute.decided', ids.get(slug)!);
        });
      }
    }
    return apiKey;
  }
}
