import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, ValidateBy } from 'class-validator';
import { SOURCE_MAX_LENGTH, normalizeSource } from '../auth/partner-source';
import { ErrorCatalogue, type ErrorEntry } from '../common/error-catalogue';
import { QueryParameters, withCode } from '../common/envelope-validation.pipe';
import { isStorableText, isWithinLength, SLUG_PATTERN, TEXT_PATTERN } from '../common/validation';
import { normalizeSlug, SLUG_MAX_LENGTH } from './market-identity';

/** A parameter of get_public_market: given once as text, normalized, then `entry` when nothing is left, else at most `max` storable characters. */
function PublicParameter(entry: ErrorEntry, max: number, normalize: (raw: string) => string): PropertyDecorator {
  const text = (check: (value: string) => boolean) => (value: unknown) => typeof value !== 'string' || check(value);
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? normalize(value) : value)),
    ValidateBy({ name: 'present', validator: { validate: (value: unknown) => value !== undefined && value !== '' } }, withCode(entry)),
    IsString({ message: '$property must be given once, as a string' }),
    ValidateBy({ name: 'withinLength', validator: { validate: text((value) => isWithinLength(value, max)) } }, { message: `$property must be at most ${max} characters` }),
    ValidateBy({ name: 'storable', validator: { validate: text(isStorableText) } }, { message: '$property must not contain NUL characters' }),
  );
}

/** get_public_market's query (spec §4.1): 4100 without a slug, 4101 without a source, then one 4000 naming the rest. */
@QueryParameters()
export class PublicMarketQuery {
  /** Market slug; leading and trailing spaces and "/" are ignored */
  @ApiProperty({ required: true, example: 'btc-above-100k-2026', type: 'string', minLength: 1, maxLength: SLUG_MAX_LENGTH, pattern: SLUG_PATTERN })
  @PublicParameter(ErrorCatalogue.SLUG_REQUIRED, SLUG_MAX_LENGTH, normalizeSlug)
  slug!: string;

  /** The partner-specific source identifier; leading and trailing spaces are ignored */
  @ApiProperty({ required: true, example: 'demo', type: 'string', minLength: 1, maxLength: SOURCE_MAX_LENGTH, pattern: TEXT_PATTERN })
  @PublicParameter(ErrorCatalogue.SOURCE_REQUIRED, SOURCE_MAX_LENGTH, normalizeSource)
  source!: string;
}
