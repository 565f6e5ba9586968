import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { assertDisputable, type MarketStatus } from '../markets/market-state';

export const DISPUTE_STATUSES = ['open', 'closed'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const DECISION_TYPES = ['keep', 'override'] as const;
export type DecisionType = (typeof DECISION_TYPES)[number];

export interface DisputeTarget {
  source: string;
  status: MarketStatus;
  hasDispute: boolean;
}

/**
 * The checks of contract §2 after the market is found, in their fixed order: the source
 * first (a partner learns nothing about another partner's market), then one dispute per
 * market, then the market's state.
 */
export function assertCanSubmitDispute(partnerSource: string, market: DisputeTarget): void {
  if (market.source !== partnerSource) throw new ApiError(ErrorCatalogue.MARKET_OTHER_SOURCE);
  if (market.hasDispute) throw new ApiError(ErrorCatalogue.MARKET_ALREADY_DISPUTED);
  assertDisputable(market.status);
}

/** open → closed: a dispute is decided once. */
export function assertDecidable(status: DisputeStatus): void {
  if (status !== 'open') throw new ApiError(ErrorCatalogue.DISPUTE_ALREADY_DECIDED);
}

/** The verdict partners settle on after review (spec §2, decision.partner_final_verdict). */
export function partnerFinalVerdict(type: DecisionType, submitterSelection: string, marketVerdict: string): string {
  return type === 'override' ? submitterSelection : marketVerdict;
}
