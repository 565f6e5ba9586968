import { Transform } from 'class-transformer';
import { Allow, IsDefined, IsString, Length } from 'class-validator';
import { IsSafeId, ToSafeId, Trim } from '../common/validation';
import { parseRfc3339 } from '../common/rfc3339';

export const SUBMITTER_ID_MAX = 128;
export const SUBMITTER_NAME_MAX = 200;
export const SELECTION_MAX = 200;
export const REASON_MAX = 4000;

const text = (max: number) => `$property must be a non-empty string of at most ${max} characters`;

/** submit_dispute's body (spec §4.2, contract §2). */
export class SubmitDisputeDto {
  @IsDefined()
  @ToSafeId()
  @IsSafeId()
  market_id: number;

  @IsDefined()
  @Trim()
  @IsString({ message: text(SUBMITTER_ID_MAX) })
  @Length(1, SUBMITTER_ID_MAX, { message: text(SUBMITTER_ID_MAX) })
  submitter_id: string;

  @IsDefined()
  @Trim()
  @IsString({ message: text(SUBMITTER_NAME_MAX) })
  @Length(1, SUBMITTER_NAME_MAX, { message: text(SUBMITTER_NAME_MAX) })
  submitter_name: string;

  @IsDefined()
  @Trim()
  @IsString({ message: text(SELECTION_MAX) })
  @Length(1, SELECTION_MAX, { message: text(SELECTION_MAX) })
  submitter_selection: string;

  @IsDefined()
  @Trim()
  @IsString({ message: text(REASON_MAX) })
  @Length(1, REASON_MAX, { message: text(REASON_MAX) })
  reason_text: string;

  /** Omitted or not a valid RFC 3339 timestamp: the server's time is used (spec §4.2). */
  @Allow()
  @Transform(({ value }: { value: unknown }) => parseRfc3339(value))
  submitted_at?: Date;
}
