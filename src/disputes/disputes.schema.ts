/**
 * The disputes' answers, declared once: the handlers' types and, through the swagger CLI plugin,
 * the OpenAPI schemas. ADMIN_DISPUTE_JSON (admin-dispute.ts) builds an AdminDispute in SQL.
 */
import { ApiProperty, OmitType } from '@nestjs/swagger';
import { DisputeItem, Decision } from '../markets/market-item.schema';
import { MARKET_STATUSES, type MarketStatus } from '../markets/market-state';
import { Int64, NextCursor, OneOf, Timestamp } from '../openapi/responses.schema';

export class AdminDecision extends Decision {
  /**
   * The name of the reviewer who decided (`master` for ADMIN_MASTER_KEY).
   * @example "alice"
   */
  decided_by: string;
}

export class DisputeSubmitted {
  /** @example 17 */
  @Int64()
  dispute_id: number;
}

/** The public dispute_item plus its market and submitter (contract §4). */
export class AdminDispute extends OmitType(DisputeItem, ['decision'] as const) {
  /** Always present: the decision once the dispute is `closed`, null while it is `open`. */
  decision: AdminDecision | null;

  /** @example 2 */
  @Int64()
  market_id: number;

  /** @example "demo" */
  source: string;

  /** @example "btc-above-100k-2026" */
  slug: string;

  /**
   * The market's current verdict.
   * @example "YES"
   */
  verdict: string | null;

  /**
   * The market's status (the dispute's is `status`).
   * @example "disputed"
   */
  @OneOf(MARKET_STATUSES)
  market_status: MarketStatus;

  /** @example "user-4711" */
  submitter_id: string;

  /** @example "Jane Doe" */
  submitter_name: string;
}

export class DisputeQueue {
  @ApiProperty({ type: () => [AdminDispute], description: 'Open disputes before closed ones, each oldest first.' })
  disputes: AdminDispute[];

  @NextCursor('y')
  next_cursor: string | null;
}

export class DisputeCounts {
  /** @example 3 */
  @ApiProperty({ type: 'integer' })
  open: number;

  /** @example 41 */
  @ApiProperty({ type: 'integer' })
  closed: number;
}
