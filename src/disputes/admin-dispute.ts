import { disputeItemMembers } from '../markets/market-item';
import type { DisputeItem } from '../markets/market-item';
import type { MarketStatus } from '../markets/market-state';

/**
 * The reviewers' view of a dispute (contract §4): the public dispute_item plus the market it
 * is about and the submitter's identity. `status` is the dispute's; the market's own status is
 * `market_status`, since the two would otherwise share one name.
 */
export interface AdminDispute extends Omit<DisputeItem, 'decision'> {
  market_id: number;
  source: string;
  slug: string;
  verdict: string | null;
  market_status: MarketStatus;
  submitter_id: string;
  submitter_name: string;
  decision: (NonNullable<DisputeItem['decision']> & { decided_by: string }) | null;
}

/** One admin_dispute as JSON, for the dispute `d` joined to its market `m`. */
export const ADMIN_DISPUTE_JSON = `json_build_object(
        ${disputeItemMembers({ decidedBy: true })},
        'market_id', m.id,
        'source', m.source,
        'slug', m.slug,
        'verdict', m.verdict,
        'market_status', m.status,
        'submitter_id', d.submitter_id,
        'submitter_name', d.submitter_name)`;
