/**
 * The API's shapes the page reads, taken from the server's own declarations (type-only
 * imports: nothing of the server is bundled), so the page reads what the service writes.
 */
import type { AdminDispute } from '../../disputes/disputes.schema';
import type { DisputeItem, MarketItem } from '../../markets/market-item.schema';

export type { AdminDispute } from '../../disputes/disputes.schema';
export type { DisputeItem, MarketItem } from '../../markets/market-item.schema';
export type { AuditEventView as AuditEvent } from '../../audit/audit-event-view';
export type { AccountView as Account, KeyView, PartnerKeyView as PartnerKey, PartnerView as Partner, ReviewerView as Reviewer } from '../../auth/account-listings';

export type Proof = MarketItem['proofs'][number];
export type Decision = NonNullable<AdminDispute['decision']> | NonNullable<DisputeItem['decision']>;
