// The server's own declarations, type-only (nothing of the server is bundled), so the page reads what the service writes.
import type { AdminDispute } from '../../disputes/disputes.schema';
import type { DisputeItem, MarketItem } from '../../markets/market-item.schema';

export type { AdminDispute, DisputeCounts } from '../../disputes/disputes.schema';
export type { DisputeItem, MarketItem } from '../../markets/market-item.schema';
export type { DecisionType, DisputeStatus } from '../../markets/market-state';
export type { AuditEvent } from '../../audit/audit-event.schema';
export type { Reviewer, SignedInAccount as Account } from '../../auth/accounts.schema';
export type { Partner, PartnerKey, PartnerKeyDetail as KeyView } from '../../auth/partners.schema';
export type { Webhook } from '../../webhooks/webhooks.schema';

export type Proof = MarketItem['proofs'][number];
export type Decision = NonNullable<AdminDispute['decision']> | NonNullable<DisputeItem['decision']>;
