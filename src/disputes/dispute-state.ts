import { type MarketKey, RefusalRevealingChange } from '../changes/revealed-change';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { DecisionType, DisputeStatus, MarketStatus } from '../markets/market-state';

/** The market a filing names, as read under its row lock. */
export interface FiledMarket {
  source: string;
  slug: string;
  status: MarketStatus;
}

/**
 * resolved → disputed, contract §2 steps 4–6 in their order: the partner's own market (before any state is told), no
 * dispute yet, resolved. A market leaves `resolved` only by its one filing, so `disputed` and `closed` have theirs.
 */
export function assertFileable(market: FiledMarket, partnerSource: string): void {
  if (market.source !== partnerSource) throw new ApiError(ErrorCatalogue.MARKET_OTHER_SOURCE);
  if (market.status === 'disputed' || market.status === 'closed') throw new RefusalRevealingChange(ErrorCatalogue.MARKET_ALREADY_DISPUTED, market);
  if (market.status !== 'resolved') throw new ApiError(ErrorCatalogue.MARKET_NOT_RESOLVED);
}

/** open → closed: a dispute of `market` is decided once. */
export function assertDecidable(status: DisputeStatus, market: MarketKey): void {
  if (status !== 'open') throw new RefusalRevealingChange(ErrorCatalogue.DISPUTE_ALREADY_DECIDED, market);
}

/** The verdict partners settle on after review (spec §2, decision.partner_final_verdict). */
export function partnerFinalVerdict(type: DecisionType, submitterSelection: string, marketVerdict: string): string {
  return type === 'override' ? submitterSelection : marketVerdict;
}
