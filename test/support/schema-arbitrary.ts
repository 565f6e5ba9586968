import fc from 'fast-check';

type Schema = Record<string, any>;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Bias toward small numbers: ids that exist, limits that make pages. */
const smallFirst = (min: number, max: number) =>
  fc.oneof({ arbitrary: fc.integer({ min, max: Math.min(max, min + 50) }), weight: 3 }, { arbitrary: fc.maxSafeNat(), weight: 1 }).map(
    (n) => Math.min(max, Math.max(min, n)),
  );

/** Code points, as JSON Schema counts a string's length. */
const lengthOf = (text: string) => [...text].length;

/**
 * Values a JSON Schema (the OpenAPI 3.1 document's dialect, as the service's document uses it)
 * calls valid: what a property-based API tester would send. `$ref`s resolve in `document`.
 */
export function arbitraryOf(schema: Schema, document: Schema): fc.Arbitrary<unknown> {
  if (schema.$ref) return arbitraryOf(resolve(schema.$ref, document), document);
  if (schema.oneOf ?? schema.anyOf) return fc.oneof(...(schema.oneOf ?? schema.anyOf).map((option: Schema) => arbitraryOf(option, document)));
  if (schema.allOf?.length === 1) return arbitraryOf({ ...schema, ...schema.allOf[0], allOf: undefined }, document);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const types: string[] = schema.type === undefined ? [] : [].concat(schema.type);
  if (types.length > 1) return fc.oneof(...types.map((type) => arbitraryOf({ ...schema, type }, document)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return smallFirst(schema.minimum ?? -MAX_SAFE, schema.maximum ?? MAX_SAFE);
    case 'number':
      return fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringOf(schema);
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}, document), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 5) });
    case 'object':
      return objectOf(schema, document);
    default:
      return fc.jsonValue({ maxDepth: 3 }); // {}: any value
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Infinity;
  let strings: fc.Arbitrary<string>;
  if (schema.format === 'date-time') {
    strings = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString());
  } else if (schema.pattern) {
    strings = fc.stringMatching(new RegExp(schema.pattern, 'u'));
  } else {
    strings = fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max, 40) });
  }
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  return strings.filter((text) => lengthOf(text) >= min && lengthOf(text) <= max && (!pattern || pattern.test(text)));
}

function objectOf(schema: Schema, document: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const members = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, arbitraryOf(property, document)]));
  return fc.record(members, { requiredKeys: [...required] }) as fc.Arbitrary<Record<string, unknown>>;
}

export function resolve(ref: string, document: Schema): Schema {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], document);
}
