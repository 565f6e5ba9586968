import { applyDecorators, ArgumentMetadata, Injectable, PipeTransform, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDefined, IsString, Length, ValidateBy, ValidationOptions } from 'class-validator';
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
    ApiProperty({ type: String, minLength: 1, maxLength: max, description: `Trimmed, then 1 to ${max} characters` }),
  );
}

/**
 * A positive int64 id that JavaScript holds exactly: a JSON integer or a string of digits
 * (some clients send int64 as strings); anything above 2^53-1 is rejected, never rounded.
 */
export const ToSafeId = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,20}$/.test(value) ? Number(value) : value));

export function IsSafeId(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSafeId',
      validator: {
        validate: (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value) && value > 0,
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
    }
    return super.transform(value, metadata);
  }
}
