import { IsDefined, IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '../common/page-query.dto';
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
