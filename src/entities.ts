import { AuditRecord } from './audit/audit-record.entity';
import { ApiKey } from './auth/api-key.entity';
import { PartnerAccount } from './auth/partner-account.entity';
import { ReviewerAccount } from './auth/reviewer-account.entity';
import { ChangeLogHead } from './changes/change-log-head.entity';
import { ChangeLogReader } from './changes/change-log-reader.entity';
import { MarketEvent } from './changes/market-event.entity';
import { Dispute } from './disputes/dispute.entity';
import { IdempotencyRecord } from './disputes/idempotency-record.entity';
import { Market } from './markets/market.entity';
import { Proof } from './markets/proof.entity';
import { WebhookDelivery } from './webhooks/webhook-delivery.entity';
import { WebhookEndpoint } from './webhooks/webhook-endpoint.entity';
import { WebhookFanoutHead } from './webhooks/webhook-fanout-head.entity';

/** Every entity, as each module registers its own (TypeOrmModule.forFeature): for the TypeORM CLI (ormconfig.ts) and the drift test. */
export const ENTITIES = [
  PartnerAccount,
  ApiKey,
  ReviewerAccount,
  Market,
  Proof,
  Dispute,
  IdempotencyRecord,
  AuditRecord,
  MarketEvent,
  ChangeLogHead,
  ChangeLogReader,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookFanoutHead,
];
