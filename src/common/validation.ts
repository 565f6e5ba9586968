import { applyDecorators, ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsString, ValidateBy, ValidationOptions } from 'class-validator';
import { ApiError, ErrorCatalogue } from './error-catalogue';
import { parseRfc3339 } from './rfc3339';

/** Trims string input; leaves other types for the validators to reject. */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

// The rules below as patterns, for the OpenAPI document: no NUL or unpaired surrogate, something left
// once trimmed. Never looser than the rules; stricter only in that length counts before trimming.
const STORABLE = '[^\\u0000\\uD800-\\uDFFF]';
const counted = (excluded: string) => `[^${excluded}\\u0000\\uD800-\\uDFFF]`;
/** Storable text with something in it once trimmed. */
export const TEXT_PATTERN = `^${STORABLE}*${counted('\\s')}${STORABLE}*$`;
/** A slug: something in it once trimmed of spaces and `/`. */
export const SLUG_PATTERN = `^${STORABLE}*${counted('\\s/')}${STORABLE}*$`;
/** Storable text that is not empty, taken as it is (not trimmed). */
export const NON_EMPTY_PATTERN = `^${STORABLE}*${counted('')}${STORABLE}*$`;

// Characters that do not show or that reorder text (Cc, Cf, line/paragraph separators, default
// ignorables): names differing only by them look the same. BMP only, as a pattern without the `u`
// flag cannot name the rest; a unit test holds the list to those Unicode properties.
const INVISIBLE =
  '\\u0000-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u0600-\\u0605\\u061C\\u06DD\\u070F\\u0890\\u0891\\u08E2\\u115F\\u1160' +
  '\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFFB';
const INVISIBLE_CHARACTER = new RegExp(`[${INVISIBLE}]`);
const VISIBLE = `[^${INVISIBLE}\\uD800-\\uDFFF]`;
/** A name as people read it: storable, something in it once trimmed, and no invisible character. */
export const NAME_PATTERN = `^${VISIBLE}*${counted(`\\s${INVISIBLE}`)}${VISIBLE}*$`;
/** A new market's slug, which partners type: as SLUG_PATTERN, and no invisible character. */
export const NEW_SLUG_PATTERN = `^${VISIBLE}*${counted(`\\s/${INVISIBLE}`)}${VISIBLE}*$`;

/** A required string, trimmed, then 1 to `max` characters (4000 otherwise); a `name` (who acted) also has no invisible character. */
export function RequiredText(max: number, { name = false } = {}): PropertyDecorator {
  const message = `$property must be a non-empty string of at most ${max} characters`;
  return applyDecorators(
    IsDefined(),
    Trim(),
    IsString({ message }),
    TextLength(1, max, { message }),
    StorableText(),
    ...(name ? [VisibleText()] : []),
    ApiProperty({
      type: String,
      minLength: 1,
      maxLength: max,
      pattern: name ? NAME_PATTERN : TEXT_PATTERN,
      description: name
        ? `Trimmed, then 1 to ${max} characters, none of them invisible (controls, zero-width characters, direction marks, fillers, variation selectors)`
        : `Trimmed, then 1 to ${max} characters`,
    }),
  );
}

/** Strings must not hold a character that does not show (INVISIBLE): 4000 otherwise. */
export function VisibleText(): PropertyDecorator {
  return ValidateBy({
    name: 'visibleText',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || !INVISIBLE_CHARACTER.test(value),
      defaultMessage: (args) => `${args?.property} must not contain control, zero-width or direction characters`,
    },
  });
}

/** The characters of `value` as JSON Schema's maxLength counts them: code points (a surrogate pair is one). */
export function codePoints(value: string): number {
  let count = value.length;
  for (let i = 1; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xdc00 && unit <= 0xdfff && (value.charCodeAt(i - 1) & 0xfc00) === 0xd800) count--;
  }
  return count;
}

/** Whether `value` holds at most `max` characters as the OpenAPI document counts them (codePoints). */
export const isWithinLength = (value: string, max: number) => value.length <= max || codePoints(value) <= max;

/** `min` to `max` characters in code points, as the OpenAPI document counts (class-validator's Length skips variation selectors). */
export function TextLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'textLength',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const length = codePoints(value);
          return length >= min && length <= max;
        },
        defaultMessage: (args) => `${args?.property} must be ${min} to ${max} characters long`,
      },
    },
    options,
  );
}

// U+0000, or a UTF-16 surrogate without its pair (JSON can carry "\ud800"): text PostgreSQL cannot
// hold, or would silently store as U+FFFD.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A string PostgreSQL stores exactly as given: no NUL character, no unpaired surrogate. */
export const isStorableText = (value: string) => !UNSTORABLE.test(value);

/** Strings must be storable text (4000 otherwise); other types are left to the other rules. */
export function StorableText(): PropertyDecorator {
  return ValidateBy({
    name: 'storableText',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || isStorableText(value),
      defaultMessage: (args) => `${args?.property} must not contain NUL characters or unpaired surrogates`,
    },
  });
}

/** A pattern for the decimal integers 1 to `max`: what the OpenAPI document says of ids sent as digit strings. */
export function decimalsUpTo(max: number, { leadingZeros = false } = {}): string {
  const digits = String(max);
  const alternatives = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  for (let i = 0; i < digits.length; i++) {
    const low = i === 0 ? 1 : 0;
    const digit = Number(digits[i]);
    const rest = digits.length - i - 1;
    const below = digit - 1 === low ? `${low}` : `[${low}-${digit - 1}]`;
    const after = rest === 0 ? '' : rest === 1 ? '[0-9]' : `[0-9]{${rest}}`;
    if (digit > low) alternatives.push(`${digits.slice(0, i)}${below}${after}`);
  }
  alternatives.push(digits);
  return `^${leadingZeros ? '0*' : ''}(?:${alternatives.join('|')})$`;
}

/** The longest string of digits read as an id (leading zeros included): longer ones are refused. */
export const ID_DIGITS_MAX = 20;
const ID_DIGITS = new RegExp(`^[0-9]{1,${ID_DIGITS_MAX}}$`);

/** Ids come as JSON integers or digit strings (some clients send int64 so); above 2^53-1 isSafeId refuses, never rounds. */
export const toSafeId = (value: unknown): unknown => (typeof value === 'string' && ID_DIGITS.test(value) ? Number(value) : value);

/** Whether `value` is an id as IsSafeId accepts it (after ToSafeId). */
export const isSafeId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

export const ToSafeId = () => Transform(({ value }: { value: unknown }) => toSafeId(value));

export function IsSafeId(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSafeId',
      validator: {
        validate: isSafeId,
        defaultMessage: (args) => `${args?.property} must be a positive integer no greater than 9007199254740991`,
      },
    },
    options,
  );
}

export function IsRfc3339(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isRfc3339',
      validator: {
        validate: (value: unknown) => parseRfc3339(value) !== undefined,
        defaultMessage: (args) => `${args?.property} must be an RFC 3339 timestamp`,
      },
    },
    options,
  );
}

/** A path id, by the rule of ids in bodies (toSafeId, isSafeId): `0003` is 3; 4000 otherwise. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  transform(raw: string, metadata: ArgumentMetadata): string {
    const id = toSafeId(raw);
    if (!isSafeId(id)) throw new ApiError(ErrorCatalogue.INVALID_REQUEST, `${metadata.data ?? 'id'} must be a positive integer`);
    return String(id);
  }
}

export const textMessage = (max: number) => `$property must be a non-empty string of at most ${max} characters`;
export const oneOfMessage = (values: readonly string[]) => `$property must be one of: ${values.join(', ')}`;
