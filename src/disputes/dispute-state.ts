import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { DecisionType, DisputeStatus } from '../markets/market-state';

// Filing a dispute (resolved → disputed, and its checks in the contract's order) is the
// database function file_dispute (file-dispute.function.ts): one round trip, one place.

/** open → closed: a dispute is decided once. */
export function assertDecidable(status: DisputeStatus): void {
  if (status !== 'open') throw new ApiError(ErrorCatalogue.DISPUTE_ALREADY_DECIDED);
}

/** The verdict partners settle on after review (spec §2, decision.partner_final_verdict). */
export function partnerFinalVerdict(type: DecisionType, submitterSelection: string, marketVerdict: string): string {
  return type === 'override' ? submitterSelection : marketVerdict;
}
