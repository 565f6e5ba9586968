import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, type ValidationOptions } from 'class-validator';
import { ApiError, ErrorCatalogue, type ErrorEntry } from './error-catalogue';
import { Problems, shown } from './problems';

/** How deeply arrays and objects may nest inside one body field (the DTOs need 2). */
export const MAX_FIELD_DEPTH = 16;

/** A rule whose failure is answered with `entry` rather than 4000, before any other problem (the first such rule declared wins). */
export const withCode = (entry: ErrorEntry): ValidationOptions => ({ message: entry.msg, context: { entry } });

/** The first failed rule declared withCode, if any. */
function codedError(errors: ValidationError[]): ApiError | undefined {
  for (const error of errors) {
    for (const name of Object.keys(error.constraints ?? {})) {
      const entry = (error.contexts?.[name] as { entry?: ErrorEntry } | undefined)?.entry;
      if (entry) return new ApiError(entry);
    }
  }
  return undefined;
}

const parameterQueries = new WeakSet<Function>();

/** A query whose unknown members are named "parameters", after the problems of its own members (get_public_market, as every release answered). */
export const QueryParameters = (): ClassDecorator => (target) => void parameterQueries.add(target);

/** One problem per offending field, the most telling: "required" alone, or the whole field without its parts. */
function describe(errors: ValidationError[], problems: Problems, parent = ''): void {
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    if (constraints.isDefined) problems.add(`${path} is required`);
    else if (constraints.whitelistValidation) problems.add(`${shown(path)} is not a known field`);
    else {
      const [message] = Object.values(constraints);
      if (message !== undefined) {
        problems.add(message.replace(error.property, path));
        continue;
      }
    }
    describe(error.children ?? [], problems, path);
  }
}

interface DtoFields {
  /** Every field the class declares (its validation rules name them). */
  all: Set<string>;
  /** Those holding nested DTOs (@ValidateNested). */
  nested: Set<string>;
}

const dtoFields = new WeakMap<Function, DtoFields>();

function fieldsOf(type: Function): DtoFields {
  let fields = dtoFields.get(type);
  if (!fields) {
    const rules = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
    fields = {
      all: new Set(rules.map((rule) => rule.propertyName)),
      nested: new Set(rules.filter((rule) => rule.type === 'nestedValidation').map((rule) => rule.propertyName)),
    };
    dtoFields.set(type, fields);
  }
  return fields;
}

// Iterative, since class-transformer's recursion overflows the stack. Object.prototype names in nested DTO fields
// (`__proto__`, `toString`) are reported here: class-transformer drops them silently, so whitelisting never sees them.
function withinDepth(name: string, value: unknown, nested: boolean, problems: Problems): boolean {
  const pending: [unknown, number, string][] = [[value, 0, name]];
  while (pending.length > 0) {
    const [item, depth, path] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > MAX_FIELD_DEPTH) {
      problems.add(`${shown(name)} is nested too deeply`);
      return false;
    }
    const list = Array.isArray(item);
    for (const key of Object.keys(item)) {
      if (nested && !list && key in Object.prototype) problems.add(`${shown(`${path}.${key}`)} is not a known field`);
      else pending.push([(item as Record<string, unknown>)[key], depth + 1, `${path}.${key}`]);
    }
  }
  return true;
}

/** What class-validator found, carried from the exception factory to the pipe that words it. */
class RuleViolations {
  constructor(readonly errors: ValidationError[]) {}
}

/** Linear in the input: unknown fields are refused by set lookup before class-transformer sees them. */
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
      exceptionFactory: (errors) => new RuleViolations(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { type, metatype } = metadata;
    const dto = (type === 'body' || type === 'query') && metatype !== undefined && metatype !== Object;
    if (!dto) return super.transform(value, metadata);
    const fields = fieldsOf(metatype);
    if (type === 'body') {
      // No body, or an empty one: not JSON, unless the route takes none (NoBody).
      if (value === undefined && fields.all.size === 0) value = {};
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        throw new ApiError(ErrorCatalogue.MALFORMED_JSON, 'the body must be a JSON object');
      }
    }
    // Each member once: an unknown one is a set lookup; only declared ones go on to
    // class-transformer and class-validator, so their work is bounded by the DTO, not the input.
    const problems = new Problems();
    const parameters = type === 'query' && parameterQueries.has(metatype);
    const unknown: string[] = [];
    const declared: Record<string, unknown> = {};
    let deep = false;
    for (const [name, field] of Object.entries(value as object)) {
      if (!fields.all.has(name)) unknown.push(`${shown(name)} is not a known ${parameters ? 'parameter' : 'field'}`);
      else if (withinDepth(name, field, fields.nested.has(name), problems)) declared[name] = field;
      else deep = true;
    }
    const addUnknown = () => unknown.forEach((problem) => problems.add(problem));
    if (!parameters) addUnknown();
    if (deep) throw problems.error();
    // A class without fields (NoQuery, NoBody): class-validator would refuse it as an unknown value.
    if (fields.all.size === 0) {
      if (problems.found) throw problems.error();
      return declared;
    }
    try {
      const entity = await super.transform(declared, metadata);
      if (parameters) addUnknown();
      if (problems.found) throw problems.error();
      return entity;
    } catch (error) {
      if (!(error instanceof RuleViolations)) throw error;
      const coded = codedError(error.errors);
      if (coded) throw coded;
      describe(error.errors, problems);
      if (parameters) addUnknown();
      throw problems.error();
    }
  }
}
