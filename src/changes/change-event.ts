/** The kinds of change partners can see (contract §7), one event each. */
export const CHANGE_TYPES = ['market.created', 'market.resolved', 'dispute.filed', 'dispute.decided'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** An event as the changes feed and webhooks carry it; `market` is the record right after the change. */
export interface ChangeEvent<Market = unknown> {
  id: string;
  sequence: number;
  type: ChangeType;
  occurred_at: string;
  market: Market;
}

/** An event as a poll of the log reads it: what it changed, and the primary's position once it had a sequence. */
export interface LoggedChange {
  sequence: string;
  source: string;
  slug: string;
  lsn: string;
}

/** One poll's answer (change_log_poll). */
export interface PolledChanges {
  head: string;
  /** The primary's position at the poll. */
  lsn: string;
  /** The first event still waiting for its sequence (its transaction, or an older one, runs), if any. */
  oldest_pending: string | null;
  /** How long the longest-waiting of them has waited, from its transaction's start (absent from the previous release's function). */
  pending_for_ms?: number | null;
  events: LoggedChange[];
}
