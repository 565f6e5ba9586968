import { applyDecorators, ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { getMetadataStorage, IsDefined, IsString, Length, ValidateBy, ValidationOptions } from 'class-validator';
import { ApiError, ErrorCatalogue } from './error-catalogue';
import { parseRfc3339 } from './rfc3339';

/** Trims string input; leaves other types for the validators to reject. */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/**
 * A required string, trimmed, then 1 to `max` characters long (4000 otherwise); the OpenAPI
 * document states the same bounds.
 */
export function RequiredText(max: number): PropertyDecorator {
  const message = `$property must be a non-empty string of at most ${max} characters`;
  return applyDecorators(
    IsDefined(),
    Trim(),
    IsString({ message }),
    Length(1, max, { message }),
    StorableText(),
    ApiProperty({ type: String, minLength: 1, maxLength: max, description: `Trimmed, then 1 to ${max} characters` }),
  );
}

// U+0000, or a UTF-16 surrogate without its pair (JSON can carry "\ud800"): text PostgreSQL cannot
// hold (the write failed with 5000) or would silently store as U+FFFD.
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

/**
 * A positive int64 id that JavaScript holds exactly: a JSON integer or a string of digits
 * (some clients send int64 as strings); anything above 2^53-1 is rejected, never rounded.
 */
export const toSafeId = (value: unknown): unknown => (typeof value === 'string' && /^\d{1,20}$/.test(value) ? Number(value) : value);

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

/** A path id: a positive integer JavaScript holds exactly (4000 otherwise). */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, string> {
  transform(raw: string, metadata: ArgumentMetadata): string {
    if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
      throw new ApiError(ErrorCatalogue.INVALID_REQUEST, `${metadata.data ?? 'id'} must be a positive integer`);
    }
    return raw;
  }
}

function describeErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    // One message per field, the most telling: a missing field is only "required".
    const own = constraints.isDefined
      ? [`${path} is required`]
      : constraints.whitelistValidation
        ? [`${path} is not a known field`]
        : Object.values(constraints).slice(0, 1).map((message) => message.replace(error.property, path));
    return [...own, ...describeErrors(error.children ?? [], path)];
  });
}

/** How deeply arrays and objects may nest inside one body field (the DTOs need 2). */
export const MAX_FIELD_DEPTH = 16;

/** Whether arrays/objects nest more than `limit` levels deep in `value` (iteratively: no recursion). */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

const rulesOf = (type: Function) => getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);

/** A body or query object validated against a DTO class. */
function isDto(value: unknown, { type, metatype }: ArgumentMetadata): value is object {
  return (type === 'body' || type === 'query') && !!metatype && metatype !== Object && typeof value === 'object' && value !== null;
}

/** `<key> is not a known field` for each top-level member the DTO does not declare. */
function unknownMembers(value: object, metatype: Function): string[] {
  const known = new Set(rulesOf(metatype).map((rule) => rule.propertyName));
  return Object.keys(value).filter((key) => !known.has(key)).map((key) => `${key} is not a known field`);
}

/** Members of the sent value (in it, or in nested DTOs and arrays of them) the validated entity lacks. */
function droppedMembers(sent: unknown, entity: unknown, path: string): string[] {
  if (typeof sent !== 'object' || sent === null || typeof entity !== 'object' || entity === null) return [];
  if (Array.isArray(sent) !== Array.isArray(entity)) return [];
  if (!Array.isArray(entity) && rulesOf(entity.constructor).length === 0) return []; // a Date, or a free-form value
  return Object.keys(sent).flatMap((key) => {
    const at = path ? `${path}.${key}` : key;
    if (!Object.prototype.hasOwnProperty.call(entity, key)) return [`${at} is not a known field`];
    return droppedMembers((sent as Record<string, unknown>)[key], (entity as Record<string, unknown>)[key], at);
  });
}

/**
 * The global ValidationPipe: DTO bodies must be JSON objects (else 4001); every offending
 * field is named in one 4000; unknown fields are rejected.
 */
@Injectable()
export class EnvelopeValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      stopAtFirstError: false,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new ApiError(ErrorCatalogue.INVALID_REQUEST, describeErrors(errors).join('; ')),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      if (value === undefined) value = {};
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new ApiError(ErrorCatalogue.MALFORMED_JSON, 'the body must be a JSON object');
      }
      // class-transformer walks the body recursively: thousands of levels overflow the stack.
      const tooDeep = Object.keys(value).filter((key) => nestedDeeperThan((value as Record<string, unknown>)[key], MAX_FIELD_DEPTH));
      if (tooDeep.length > 0) {
        throw new ApiError(ErrorCatalogue.INVALID_REQUEST, tooDeep.map((key) => `${key} is nested too deeply`).join('; '));
      }
    }
    if (!isDto(value, metadata)) return super.transform(value, metadata);
    // class-transformer silently drops members named like Object.prototype's (`__proto__`,
    // `constructor`, `toString`, `valueOf`, ...) and Nest strips `__proto__`, so whitelisting
    // never sees them: they are named here, from a copy taken before either runs.
    const sent = structuredClone(value);
    let entity: unknown;
    try {
      entity = await super.transform(value, metadata);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== ErrorCatalogue.INVALID_REQUEST.code) throw error;
      const reported = error.detail.split('; ');
      const unknown = unknownMembers(sent, metadata.metatype!).filter((problem) => !reported.includes(problem));
      if (unknown.length === 0) throw error;
      throw new ApiError(ErrorCatalogue.INVALID_REQUEST, [...reported, ...unknown].join('; '));
    }
    const dropped = droppedMembers(sent, entity, '');
    if (dropped.length > 0) throw new ApiError(ErrorCatalogue.INVALID_REQUEST, dropped.join('; '));
    return entity;
  }
}
