/**
 * The error envelope's schema and the property decorators every module's answer schemas share
 * (markets/market-item.schema.ts and the like). The swagger CLI plugin (nest-cli.json) turns
 * property types and comments, with their `@example` tags, into the document's schemas.
 */
import { ApiProperty } from '@nestjs/swagger';
import type { ErrorEnvelope as ErrorEnvelopeShape } from '../common/envelope';
import { ErrorCatalogue } from '../common/error-catalogue';
import { CURSOR_PATTERN } from '../common/cursor';

const CATALOGUE = Object.values(ErrorCatalogue);

/** Ids are PostgreSQL bigints, sent as JSON integers. */
export const Int64 = () => ApiProperty({ type: 'integer', format: 'int64' });

/** Timestamps are RFC 3339 in UTC (contract §3): a generated client can read them as dates. */
export const Timestamp = ({ nullable = false } = {}) => ApiProperty({ type: 'string', format: 'date-time', ...(nullable ? { nullable } : {}) });

/** One of a declared list (markets/market-state.ts), in its order: a union type alone gives the document no stable order. */
export const OneOf = (values: readonly string[], { nullable = false } = {}) => ApiProperty({ enum: [...values], ...(nullable ? { nullable } : {}) });

/** A page's `next_cursor`, of the form the `cursor` parameter takes. */
export const NextCursor = (example: string) =>
  ApiProperty({
    type: 'string',
    nullable: true,
    pattern: CURSOR_PATTERN,
    example,
    description: 'Pass as `cursor` for the next page; null on the last page.',
  });

export class ErrorEnvelope implements ErrorEnvelopeShape {
  /**
   * A non-zero code from the catalogue: a generated client tells success (0) from error by it.
   * @example 4100
   */
  @ApiProperty({ type: 'integer', enum: CATALOGUE.map((entry) => entry.code) })
  code: number;

  /**
   * The catalogue message of the code.
   * @example "slug is required"
   */
  @ApiProperty({ enum: CATALOGUE.map((entry) => entry.msg) })
  msg: string;

  /**
   * Specifics, often equal to msg; for 4000 every offending field.
   * @example "slug is required"
   */
  detail: string;
}
