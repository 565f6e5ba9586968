import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Allow, IsDefined } from 'class-validator';
import { decimalsUpTo, ID_DIGITS_MAX, IsSafeId, RequiredText, ToSafeId } from '../common/validation';
import { parseRfc3339 } from '../common/rfc3339';

export const SUBMITTER_ID_MAX = 128;
export const SUBMITTER_NAME_MAX = 200;
export const SELECTION_MAX = 200;
export const REASON_MAX = 4000;

/** submit_dispute's body (spec §4.2, contract §2). */
export class SubmitDisputeDto {
  /**
   * The market's id as get_public_market returns it: a JSON integer, or a string of digits
   * (int64 as a string); at most 2^53-1, never rounded.
   * @example 2
   */
  @ApiProperty({
    oneOf: [
      { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      // Up to 2^53-1 exactly, leading zeros allowed, 20 digits at most.
      { type: 'string', maxLength: ID_DIGITS_MAX, pattern: decimalsUpTo(Number.MAX_SAFE_INTEGER, { leadingZeros: true }) },
    ],
  })
  @IsDefined()
  @ToSafeId()
  @IsSafeId()
  market_id: number;

  /**
   * The end user's unique id on the partner's side.
   * @example "user-4711"
   */
  @RequiredText(SUBMITTER_ID_MAX)
  submitter_id: string;

  /** @example "Jane Doe" */
  @RequiredText(SUBMITTER_NAME_MAX)
  submitter_name: string;

  /**
   * The outcome the submitter claims is correct.
   * @example "NO"
   */
  @RequiredText(SELECTION_MAX)
  submitter_selection: string;

  /** @example "The close was below 100k on the reference exchange." */
  @RequiredText(REASON_MAX)
  reason_text: string;

  /**
   * When the submitter filed it: an RFC 3339 timestamp. Any other value (a number, null, text
   * that is no timestamp), or none, is not an error: the server's time is used instead (spec §4.2).
   * @example "2026-11-02T08:00:00Z"
   */
  @ApiProperty({
    required: false,
    oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }, { type: 'object' }, { type: 'array' }],
  })
  @Allow()
  @Transform(({ value }: { value: unknown }) => parseRfc3339(value))
  submitted_at?: Date;
}
