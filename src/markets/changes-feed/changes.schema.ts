/** The changes feed's answer, for the OpenAPI document (the feed builds it from change events). */
import { ApiProperty } from '@nestjs/swagger';
import { CHANGE_TYPES, type ChangeType } from '../../changes/change-event';
import { Int64, Timestamp } from '../../openapi/responses.schema';
import { MarketItem } from '../market-item.schema';

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
