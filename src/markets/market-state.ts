import { ApiError, ErrorCatalogue } from '../common/error-catalogue';

// The values of the public record's enumerated fields, each declared once: the types, the
// OpenAPI enums (through the types), the DTOs' @IsIn and the SQL (sqlText) follow these lists.
// The disputes' are here too, since the market's record carries its disputes.
export const MARKET_STATUSES = ['monitoring', 'resolved', 'disputed', 'closed'] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

export const CONFIDENCES = ['VERY_HIGH', 'HIGH', 'MEDIUM', 'LOW', 'VERY_LOW'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

export const CHAINS = ['base', 'bsc'] as const;
export type Chain = (typeof CHAINS)[number];

export const DISPUTE_STATUSES = ['open', 'closed'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

export const DECISION_TYPES = ['keep', 'override'] as const;
export type DecisionType = (typeof DECISION_TYPES)[number];

/** A declared status or decision type as an SQL literal: the compiler holds every value the SQL names to the lists above. */
export const sqlText = (value: MarketStatus | DisputeStatus | DecisionType): string => `'${value}'`;

/** monitoring → resolved: only a market still being monitored can receive its verdict. */
export function assertResolvable(status: MarketStatus): void {
  if (status !== 'monitoring') throw new ApiError(ErrorCatalogue.MARKET_NOT_MONITORING);
}

/** disputed → closed: the review's decision closes the market (a disputed market has an open dispute). */
export function assertClosable(status: MarketStatus): void {
  if (status !== 'disputed') throw new Error(`a decided dispute's market must be disputed, found ${status}`);
}
