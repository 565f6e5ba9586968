import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Allow, IsDefined, length } from 'class-validator';
import { IsSafeId, isSafeId, isStorableText, RequiredText, toSafeId, ToSafeId } from '../common/validation';
import { parseRfc3339 } from '../common/rfc3339';

export const SUBMITTER_ID_MAX = 128;
export const SUBMITTER_NAME_MAX = 200;
export const SELECTION_MAX = 200;
export const REASON_MAX = 4000;

/** submit_dispute's body (spec §4.2, contract §2). */
export class SubmitDisputeDto {
  /**
   * The market's id as get_public_market returns it (a JSON integer or a string of digits).
   * @example 2
   */
  @ApiProperty({ type: 'integer', format: 'int64' })
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
   * RFC 3339 timestamp; omitted or not a valid one, the server's time is used (spec §4.2).
   * @example "2026-11-02T08:00:00Z"
   */
  @Allow()
  @Transform(({ value }: { value: unknown }) => parseRfc3339(value))
  submitted_at?: Date;
}

const TEXT_FIELDS = {
  submitter_id: SUBMITTER_ID_MAX,
  submitter_name: SUBMITTER_NAME_MAX,
  submitter_selection: SELECTION_MAX,
  reason_text: REASON_MAX,
} as const;
const FIELDS = new Set(['market_id', 'submitted_at', ...Object.keys(TEXT_FIELDS)]);

/**
 * The SubmitDisputeDto the validation pipe would make of a parsed JSON body that it accepts
 * without question: a plain object with only the declared fields, each of the plainest valid
 * kind (`submitted_at` absent or a string). undefined for anything else, valid or not: the
 * pipe decides those, and words their errors (the dispute fast path hands them to it).
 * src/disputes/submit-dispute.dto.spec.ts holds the two to the same result.
 */
export function plainSubmission(body: unknown): SubmitDisputeDto | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (!FIELDS.has(key)) return undefined;
  const dto = new SubmitDisputeDto();
  const marketId = toSafeId(fields.market_id);
  if (!isSafeId(marketId)) return undefined;
  dto.market_id = marketId;
  for (const [name, max] of Object.entries(TEXT_FIELDS) as [keyof typeof TEXT_FIELDS, number][]) {
    const value = fields[name];
    if (typeof value !== 'string') return undefined;
    const text = value.trim();
    if (!length(text, 1, max) || !isStorableText(text)) return undefined;
    dto[name] = text;
  }
  const submittedAt = fields.submitted_at;
  if (submittedAt !== undefined) {
    if (typeof submittedAt !== 'string') return undefined;
    dto.submitted_at = parseRfc3339(submittedAt);
  }
  return dto;
}
