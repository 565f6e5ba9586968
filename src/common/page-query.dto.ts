import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { CURSOR_PATTERN, NOT_A_CURSOR } from './cursor';
import { NON_EMPTY_PATTERN, StorableText, TextLength, textMessage } from './validation';

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
