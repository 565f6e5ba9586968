import { Inject, Injectable } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail';
import { PartnerKeysService } from '../auth/partner-keys.service';
import type { AdminActor } from '../auth/reviewers.service';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { webhooksConfig, type WebhooksConfig } from '../config/configuration';
import type { Transaction } from '../database/sql';
import { checkWebhookUrl, RefusedUrl } from './url-policy';
import { generateSecret, PREVIOUS_SECRET_HOURS } from './webhook-signature';
import { WebhookFanout } from './webhook-fanout';
import { REDELIVER_LIMIT } from './redeliver-limit';
import type { RedeliveryCount, WebhookList } from './webhooks.schema';
import { WebhooksRepository } from './webhooks.repository';

/** Webhooks a partner may have at once: its list is answered whole. */
const WEBHOOKS_PER_PARTNER = 20;

/** A webhook's id as the admin API shows it. */
const webhookId = (id: string) => Number(id);

/** The admin API's webhooks of a partner (contract §7): each write in one transaction with its audit event, never the secret. */
@Injectable()
export class WebhooksService {
  private readonly allowPrivate: boolean;

  constructor(
    @Inject(webhooksConfig.KEY) config: WebhooksConfig,
    private readonly audit: AuditTrail,
    private readonly partners: PartnerKeysService,
    private readonly repository: WebhooksRepository,
    private readonly fanout: WebhookFanout,
  ) {
    this.allowPrivate = config.allowPrivateUrls;
  }

  /** Registers `url` for `source` (4000 with why when the URL is refused); its secret is shown once. */
  async create(actor: AdminActor, source: string, url: string, description: string | null) {
    await this.partners.requireSource(source);
    const checked = await checkWebhookUrl(url, this.allowPrivate).catch((error: unknown) => {
      throw error instanceof RefusedUrl ? new ApiError(ErrorCatalogue.INVALID_REQUEST, error.message) : error;
    });
    const secret = generateSecret();
    return this.audit.record(actor, async (tx) => {
      // Held until commit: concurrent registrations count one after another, so the limit holds.
      await this.partners.requirePartner(tx, source, { lock: true });
      const created = await this.repository.insert(tx, source, checked.href, description, secret);
      if (created.count > WEBHOOKS_PER_PARTNER) throw new ApiError(ErrorCatalogue.INVALID_REQUEST, `a partner has at most ${WEBHOOKS_PER_PARTNER} webhooks`);
      const id = webhookId(created.id);
      // The trail names the URL without its query, which may carry a token of the partner's.
      return {
        result: { webhook_id: id, url: checked.href, description, secret, created_at: created.created_at },
        audit: { action: 'webhook.created', target: `partner:${source}`, details: { webhook_id: id, url: `${checked.origin}${checked.pathname}`, description } },
      };
    });
  }

  async list(source: string): Promise<WebhookList> {
    await this.partners.requireSource(source);
    return { webhooks: await this.repository.list(source), private_urls_allowed: this.allowPrivate };
  }

  /** How many events `redeliver` would queue now (4042, 4046 as it would answer); nothing is written. */
  async redeliverable(source: string, id: string, after: number): Promise<RedeliveryCount> {
    await this.partners.requireSource(source);
    const events = await this.repository.countRedeliverable(id, source, after, REDELIVER_LIMIT);
    if (events === undefined) throw new ApiError(ErrorCatalogue.WEBHOOK_NOT_FOUND);
    return { events };
  }

  delete(actor: AdminActor, source: string, id: string) {
    return this.audit.record(actor, async (tx) => {
      await this.requireWebhook(tx, source, id);
      const deletedAt = await this.repository.delete(tx, id);
      return {
        result: { webhook_id: webhookId(id), deleted_at: deletedAt },
        audit: { action: 'webhook.deleted', target: `partner:${source}`, details: { webhook_id: webhookId(id) } },
      };
    });
  }

  rotateSecret(actor: AdminActor, source: string, id: string) {
    const secret = generateSecret();
    return this.audit.record(actor, async (tx) => {
      await this.requireWebhook(tx, source, id);
      const previousExpiresAt = await this.repository.rotate(tx, id, secret, PREVIOUS_SECRET_HOURS);
      return {
        result: { webhook_id: webhookId(id), secret, previous_secret_expires_at: previousExpiresAt },
        audit: { action: 'webhook.secret_rotated', target: `partner:${source}`, details: { webhook_id: webhookId(id), previous_valid_hours: PREVIOUS_SECRET_HOURS } },
      };
    });
  }

  async redeliver(actor: AdminActor, source: string, id: string, after: number) {
    const result = await this.audit.record(actor, async (tx) => {
      await this.requireWebhook(tx, source, id);
      const queued = await this.repository.redeliver(tx, id, source, after, REDELIVER_LIMIT);
      return {
        result: { queued },
        audit: { action: 'webhook.redelivery_queued', target: `partner:${source}`, details: { webhook_id: webhookId(id), after, queued } },
      };
    });
    this.fanout.redeliveriesQueued();
    return result;
  }

  /** 4042 for an unknown partner, 4046 for a webhook that is not this partner's (or deleted); locked until the write commits. */
  private async requireWebhook(tx: Transaction, source: string, id: string): Promise<void> {
    await this.partners.requirePartner(tx, source);
    if (!(await this.repository.lock(tx, source, id))) throw new ApiError(ErrorCatalogue.WEBHOOK_NOT_FOUND);
  }
}
