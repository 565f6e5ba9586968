/**
 * The shapes of the envelopes' `data`, for the OpenAPI document only: the handlers build these
 * objects in SQL (markets/market-item.ts, disputes/admin-dispute.ts), so nothing here is used at
 * run time. The swagger CLI plugin (nest-cli.json) turns the property types and the comments,
 * with their `@example` tags, into the document's schemas. The back office's accounts, keys and
 * audit: accounts.schema.ts.
 */
import { ApiProperty, OmitType } from '@nestjs/swagger';
import { CHANGE_TYPES, type ChangeType } from '../changes/change-event';
import type { ErrorEnvelope as ErrorEnvelopeShape } from '../common/envelope';
import { ErrorCatalogue } from '../common/error-catalogue';
import { CURSOR_PATTERN } from '../common/cursor';

const CATALOGUE = Object.values(ErrorCatalogue);

/** Ids are PostgreSQL bigints, sent as JSON integers. */
export const Int64 = () => ApiProperty({ type: 'integer', format: 'int64' });

/** Timestamps are RFC 3339 in UTC (contract §3): a generated client can read them as dates. */
export const Timestamp = ({ nullable = false } = {}) => ApiProperty({ type: 'string', format: 'date-time', ...(nullable ? { nullable } : {}) });

/** A page's `next_cursor`, of the form the `cursor` parameter takes. */
export const NextCursor = (example: string) =>
  ApiProperty({
    type: 'string',
    nullable: true,
    pattern: CURSOR_PATTERN,
    example,
    description: 'Pass as `cursor` for the next page; null on the last page.',
  });

export class ErrorEnvelope implements ErrorEnvelopeShape {
  /**
   * A non-zero code from the catalogue: a generated client tells success (0) from error by it.
   * @example 4100
   */
  @ApiProperty({ type: 'integer', enum: CATALOGUE.map((entry) => entry.code) })
  code: number;

  /**
   * The catalogue message of the code.
   * @example "slug is required"
   */
  @ApiProperty({ enum: CATALOGUE.map((entry) => entry.msg) })
  msg: string;

  /**
   * Specifics, often equal to msg; for 4000 every offending field.
   * @example "slug is required"
   */
  detail: string;
}

export class ProofItem {
  /** @example "base" */
  chain: 'base' | 'bsc';

  /** @example "0x8f2a559490c1c3a6a1b7b7d3a1e3f1c2b4d5e6f708192a3b4c5d6e7f8091a2b3" */
  tx_hash: string;
}

export class Decision {
  /** @example "keep" */
  type: 'keep' | 'override';

  /**
   * For `override` the dispute's submitter_selection; for `keep` the market's verdict.
   * @example "YES"
   */
  partner_final_verdict: string;

  /** @example "The official source confirms the close above 100k." */
  reason_text: string;

  /**
   * RFC 3339 UTC timestamp, milliseconds precision.
   * @example "2026-11-03T09:30:00.000Z"
   */
  @Timestamp()
  decided_at: string;
}

export class AdminDecision extends Decision {
  /**
   * The name of the reviewer who decided (`master` for ADMIN_MASTER_KEY).
   * @example "alice"
   */
  decided_by: string;
}

export class DisputeItem {
  /** @example 17 */
  @Int64()
  id: number;

  /** @example "closed" */
  status: 'open' | 'closed';

  /** @example "NO" */
  submitter_selection: string;

  /** @example "The close was below 100k on the reference exchange." */
  reason_text: string;

  /**
   * RFC 3339 UTC timestamp.
   * @example "2026-11-02T08:00:00.000Z"
   */
  @Timestamp()
  submitted_at: string;

  /** Present only when the dispute is `closed`. */
  decision: Decision | null;
}

/**
 * The properties in the spec's order. The document lists decorated properties before the ones
 * the plugin describes alone: those ahead of `resolved_at` (a Timestamp) carry a bare
 * @ApiProperty() for their place, the plugin still describing them.
 */
export class MarketItem {
  /** @example 2 */
  @Int64()
  id: number;

  /** @example "demo" */
  @ApiProperty()
  source: string;

  /** @example "btc-above-100k-2026" */
  @ApiProperty()
  slug: string;

  /** @example "resolved" */
  @ApiProperty()
  status: 'monitoring' | 'resolved' | 'disputed' | 'closed';

  /**
   * Populated once the market is resolved; null while monitoring.
   * @example "YES"
   */
  @ApiProperty()
  verdict: string | null;

  /**
   * RFC 3339 UTC timestamp; null while monitoring.
   * @example "2026-11-01T12:00:00.000Z"
   */
  @Timestamp({ nullable: true })
  resolved_at: string | null;

  /**
   * Populated once the market is resolved; null while monitoring.
   * @example "HIGH"
   */
  confidence: 'VERY_HIGH' | 'HIGH' | 'MEDIUM' | 'LOW' | 'VERY_LOW' | null;

  /**
   * Populated once the market is resolved; null while monitoring.
   * @example "BTC/USD closed at 101,250 on the reference exchange on 2026-10-31."
   */
  reasoning: string | null;

  /** On-chain proofs, in the order they were recorded; empty while monitoring. */
  proofs: ProofItem[];

  /** null (never an empty array) when the market has no dispute. */
  disputes: DisputeItem[] | null;
}

export class PublicMarketData {
  /** Empty when no market matches slug and source. */
  markets: MarketItem[];
}

export class ChangeEventItem {
  /** @example "evt_1042" */
  @ApiProperty({ pattern: '^evt_[0-9]+$' })
  id: string;

  /**
   * Orders every event of the service: no event with a smaller one appears later.
   * @example 1042
   */
  @Int64()
  sequence: number;

  /** @example "market.resolved" */
  @ApiProperty({ enum: CHANGE_TYPES })
  type: ChangeType;

  /**
   * When the change was made (its transaction began).
   * @example "2026-11-20T09:00:00.000Z"
   */
  @Timestamp()
  occurred_at: string;

  /** The market's record as get_public_market returned it right after this change. */
  market: MarketItem;
}

export class ChangesPage {
  /** In ascending sequence; empty when nothing came (within wait_ms). */
  @ApiProperty({ type: () => [ChangeEventItem] })
  changes: ChangeEventItem[];

  /**
   * Pass back as `after`: the last sequence returned, or your `after` when none was.
   * @example 1042
   */
  @Int64()
  next_after: number;
}

export class MarketList {
  @ApiProperty({ type: () => [MarketItem], description: 'Newest first (by id).' })
  markets: MarketItem[];

  @NextCursor('2s')
  next_cursor: string | null;
}

export class DisputeSubmitted {
  /** @example 17 */
  @Int64()
  dispute_id: number;
}

/** The public dispute_item plus its market and submitter (contract §4). */
export class AdminDispute extends OmitType(DisputeItem, ['decision'] as const) {
  /** Present only when the dispute is `closed`. */
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
  market_status: 'monitoring' | 'resolved' | 'disputed' | 'closed';

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
