import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { CURSOR_PATTERN, NOT_A_CURSOR } from './cursor';
import { YEARS_0001_TO_9999 } from './rfc3339';
import { IsRfc3339, NON_EMPTY_PATTERN, StorableText, TEXT_PATTERN, TextLength, textMessage, Trim } from './validation';

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : value);

/** An optional search text (`q`): 1 to `max` characters, taken as given (not trimmed), storable. */
export const SearchText = (max: number) =>
  applyDecorators(
    ApiProperty({ type: 'string', minLength: 1, maxLength: max, pattern: NON_EMPTY_PATTERN, required: false }),
    IsOptional(),
    IsString({ message: textMessage(max) }),
    TextLength(1, max, { message: textMessage(max) }),
    StorableText(),
  );

/** An optional filter matched exactly: trimmed, then 1 to `max` characters, storable. */
export const ExactText = (max: number) =>
  applyDecorators(
    ApiProperty({ type: 'string', minLength: 1, maxLength: max, pattern: TEXT_PATTERN, required: false }),
    IsOptional(),
    Trim(),
    IsString({ message: textMessage(max) }),
    TextLength(1, max, { message: textMessage(max) }),
    StorableText(),
  );

/** An optional RFC 3339 timestamp (a body's or a listing's bound). */
export const OptionalTimestamp = () =>
  applyDecorators(ApiProperty({ type: 'string', format: 'date-time', pattern: YEARS_0001_TO_9999, required: false }), IsOptional(), IsRfc3339());

export class PageQueryDto {
  /**
   * Page size, 1 to 100 (50 when omitted).
   * @example 20
   */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100, required: false })
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: '$property must be an integer from 1 to 100' })
  @Min(1, { message: '$property must be an integer from 1 to 100' })
  @Max(100, { message: '$property must be an integer from 1 to 100' })
  limit?: number;

  /** The `next_cursor` of the previous page. */
  @ApiProperty({ type: 'string', pattern: CURSOR_PATTERN, required: false })
  @IsOptional()
  @IsString({ message: '$property must be given once' })
  @Matches(new RegExp(CURSOR_PATTERN), { message: `$property ${NOT_A_CURSOR}` })
  cursor?: string;
}
