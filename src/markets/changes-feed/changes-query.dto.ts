import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Digits only, then a number (a JS number holds every sequence the service will reach exactly). */
const toInteger = (digits: number) => ({ value }: { value: unknown }) =>
  typeof value === 'string' && new RegExp(`^\\d{1,${digits}}$`).test(value) ? Number(value) : value;

const range = (min: number, max: number) => `$property must be an integer from ${min} to ${max}`;

export const CHANGES_LIMIT_MAX = 500;
export const CHANGES_WAIT_MAX_MS = 25_000;

/** GET /oracle/markets/changes (contract §7). */
export class ChangesQueryDto {
  /**
   * The last sequence you have read (`next_after` of your previous call); 0 or none: from the first event kept.
   * Past the newest event: 4000 (continue from the `next_after` you stored, or from 0).
   * @example 1042
   */
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, required: false })
  @IsOptional()
  @Transform(toInteger(16))
  @IsInt({ message: range(0, Number.MAX_SAFE_INTEGER) })
  @Min(0, { message: range(0, Number.MAX_SAFE_INTEGER) })
  @Max(Number.MAX_SAFE_INTEGER, { message: range(0, Number.MAX_SAFE_INTEGER) })
  after?: number;

  /**
   * Events at most, 1 to 500 (100 when omitted).
   * @example 100
   */
  @ApiProperty({ type: 'integer', minimum: 1, maximum: CHANGES_LIMIT_MAX, required: false })
  @IsOptional()
  @Transform(toInteger(3))
  @IsInt({ message: range(1, CHANGES_LIMIT_MAX) })
  @Min(1, { message: range(1, CHANGES_LIMIT_MAX) })
  @Max(CHANGES_LIMIT_MAX, { message: range(1, CHANGES_LIMIT_MAX) })
  limit?: number;

  /**
   * With nothing to return, how long to hold the request for the first new event of your source,
   * 0 to 25000 ms (0 when omitted: answer at once).
   * @example 20000
   */
  @ApiProperty({ type: 'integer', minimum: 0, maximum: CHANGES_WAIT_MAX_MS, required: false })
  @IsOptional()
  @Transform(toInteger(5))
  @IsInt({ message: range(0, CHANGES_WAIT_MAX_MS) })
  @Min(0, { message: range(0, CHANGES_WAIT_MAX_MS) })
  @Max(CHANGES_WAIT_MAX_MS, { message: range(0, CHANGES_WAIT_MAX_MS) })
  wait_ms?: number;
}
