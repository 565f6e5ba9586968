import { disputeItemMembers } from '../markets/market-item';

/** One admin_dispute (AdminDispute, disputes.schema.ts) as JSON, for the dispute `d` joined to its market `m`. */
export const ADMIN_DISPUTE_JSON = `json_build_object(
        ${disputeItemMembers({ decidedBy: true })},
        'market_id', m.id,
        'source', m.source,
        'slug', m.slug,
        'verdict', m.verdict,
        'market_status', m.status,
        'submitter_id', d.submitter_id,
        'submitter_name', d.submitter_name)`;
