/**
 * The public settlement record (spec §2 market_item), declared once: the handlers' type and, through the swagger
 * CLI plugin, the OpenAPI schema. MARKET_ITEM_JSON (market-item.ts) builds it in SQL; test/openapi.e2e-spec holds the two together.
 */
import { ApiProperty } from '@nestjs/swagger';
import { Int64, NextCursor, OneOf, Timestamp } from '../openapi/responses.schema';
import { type Chain, CHAINS, type Confidence, CONFIDENCES, DECISION_TYPES, type DecisionType, DISPUTE_STATUSES, type DisputeStatus, MARKET_STATUSES, type MarketStatus } from './market-state';

export class ProofItem {
  /** @example "base" */
  @OneOf(CHAINS)
  chain: Chain;

  /** @example "0x8f2a559490c1c3a6a1b7b7d3a1e3f1c2b4d5e6f708192a3b4c5d6e7f8091a2b3" */
  tx_hash: string;
}

export class Decision {
  /** @example "keep" */
  @OneOf(DECISION_TYPES)
  type: DecisionType;

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

export class DisputeItem {
  /** @example 17 */
  @Int64()
  id: number;

  /** @example "closed" */
  @OneOf(DISPUTE_STATUSES)
  status: DisputeStatus;

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

  /** Always present: the decision once the dispute is `closed`, null while it is `open`. */
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
  @OneOf(MARKET_STATUSES)
  status: MarketStatus;

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
  @OneOf(CONFIDENCES, { nullable: true })
  confidence: Confidence | null;

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

export class MarketList {
  @ApiProperty({ type: () => [MarketItem], description: 'Newest first (by id).' })
  markets: MarketItem[];

  @NextCursor('2s')
  next_cursor: string | null;
}
