import { rfc3339 } from '../database/sql-fragments';
import { sqlText } from './market-state';

/** dispute_item members for the dispute aliased `d`; the admin view adds `decided_by` to the decision, and more members around them. */
export function disputeItemMembers(options: { decidedBy: boolean }): string {
  return `'id', d.id,
        'status', d.status,
        'submitter_selection', d.submitter_selection,
        'reason_text', d.reason_text,
        'submitted_at', ${rfc3339('d.submitted_at')},
        'decision', CASE WHEN d.status = ${sqlText('closed')} THEN json_build_object(
          'type', d.decision_type,
          'partner_final_verdict', d.partner_final_verdict,
          'reason_text', d.decision_reason,
          'decided_at', ${rfc3339('d.decided_at')}${options.decidedBy ? `,
          'decided_by', d.decided_by` : ''}) END`;
}

const DISPUTE_ITEM_JSON = `json_build_object(${disputeItemMembers({ decidedBy: false })})`;

/** market_item (market-item.schema.ts) for the market aliased `m`, built by PostgreSQL: the submitter's identity is never selected. */
export const MARKET_ITEM_JSON = `json_build_object(
    'id', m.id,
    'source', m.source,
    'slug', m.slug,
    'status', m.status,
    'verdict', m.verdict,
    'resolved_at', ${rfc3339('m.resolved_at')},
    'confidence', m.confidence,
    'reasoning', m.reasoning,
    'proofs', COALESCE((
      SELECT json_agg(json_build_object('chain', p.chain, 'tx_hash', p.tx_hash) ORDER BY p.position)
      FROM proofs p WHERE p.market_id = m.id), '[]'::json),
    'disputes', (
      SELECT json_agg(${DISPUTE_ITEM_JSON} ORDER BY d.id)
      FROM disputes d WHERE d.market_id = m.id)
  )`;

/** The public record of market `m` (MARKET_ITEM_JSON), for events written inside the database. */
export const MARKET_ITEM_FUNCTION = `
  CREATE OR REPLACE FUNCTION market_item(m markets) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT ${MARKET_ITEM_JSON}
  $$`;
