import { Transform } from 'class-transformer';
import { Allow, IsDefined } from 'class-validator';
import { IsSafeId, RequiredText, ToSafeId } from '../common/validation';
import { parseRfc3339 } from '../common/rfc3339';

export const SUBMITTER_ID_MAX = 128;
export const SUBMITTER_NAME_MAX = 200;
export const SELECTION_MAX = 200;
export const REASON_MAX = 4000;

/** submit_dispute's body (spec §4.2, contract §2). */
export class SubmitDisputeDto {
  @IsDefined()
  @ToSafeId()
  @IsSafeId()
  market_id: number;

  @RequiredText(SUBMITTER_ID_MAX)
  submitter_id: string;

  @RequiredText(SUBMITTER_NAME_MAX)
  submitter_name: string;

  @RequiredText(SELECTION_MAX)
  submitter_selection: string;

  @RequiredText(REASON_MAX)
  reason_text: string;

  /** Omitted or not a valid RFC 3339 timestamp: the server's time is used (spec §4.2). */
  @Allow()
  @Transform(({ value }: { value: unknown }) => parseRfc3339(value))
  submitted_at?: Date;
}
