import { IsDefined, IsIn, IsOptional } from 'class-validator';
import { ExactText, OptionalTimestamp, PageQueryDto } from '../common/page-query.dto';
import { oneOfMessage, RequiredText } from '../common/validation';
import { DECISION_TYPES, DISPUTE_STATUSES, type DecisionType, type DisputeStatus } from '../markets/market-state';

export class DecisionDto {
  /**
   * `keep` retains the market's verdict; `override` adopts the submitter's selection.
   * @example "keep"
   */
  @IsDefined()
  @IsIn(DECISION_TYPES, { message: oneOfMessage(DECISION_TYPES) })
  type: DecisionType;

  /** @example "The official source confirms the close above 100k." */
  @RequiredText(4000)
  reason_text: string;
}

export class DisputeQueueQueryDto extends PageQueryDto {
  /**
   * Only disputes in this status (all when omitted: the open ones first).
   * @example "open"
   */
  @IsOptional()
  @IsIn(DISPUTE_STATUSES, { message: oneOfMessage(DISPUTE_STATUSES) })
  status?: DisputeStatus;
}

export class AuditQueryDto extends PageQueryDto {
  /**
   * Only the writes of this account, by its name as the trail shows it (`master` for
   * ADMIN_MASTER_KEY); exact, trimmed.
   * @example "alice"
   */
  @ExactText(200)
  actor?: string;

  /**
   * Only this action, as the trail names it; exact, trimmed.
   * @example "dispute.decided"
   */
  @ExactText(64)
  action?: string;

  /**
   * Only writes to this target, as the trail names it (`market:2`, `dispute:17`, `partner:acme`,
   * `reviewer:3`); exact, trimmed.
   * @example "partner:acme"
   */
  @ExactText(200)
  target?: string;

  /**
   * Only writes made at or after this instant.
   * @example "2026-11-01T00:00:00Z"
   */
  @OptionalTimestamp()
  from?: string;

  /**
   * Only writes made before this instant (a `from` after it: an empty page).
   * @example "2026-12-01T00:00:00Z"
   */
  @OptionalTimestamp()
  to?: string;
}
