import { ApiError, type ErrorEntry } from '../common/error-catalogue';

/** A market as the change log and the public record cache name it. */
export interface MarketKey {
  source: string;
  slug: string;
}

/** A refusal that tells the client a change was committed (4091: a dispute exists; 4092: it was decided): answered once every instance has that change, as the change's own answer was (ChangeLog.acknowledge). */
export class RefusalRevealingChange extends ApiError {
  constructor(
    entry: ErrorEntry,
    readonly market: MarketKey,
  ) {
    super(entry);
  }
}
