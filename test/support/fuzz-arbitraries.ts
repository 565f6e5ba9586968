import fc from 'fast-check';

/**
 * Generators shared by the fuzz properties: hostile strings, JSON texts that JSON.stringify
 * cannot write (1e309, -0, duplicate keys, deep nesting), URL-encoded wire forms.
 */

/** A JSON token written verbatim (a number JSON.stringify would round or turn into null). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object whose members are written in this order, duplicates included. */
export class Entries {
  constructor(readonly entries: [string, JsonTree][]) {}
}

export type JsonTree = null | boolean | number | string | RawJson | Entries | JsonTree[] | { [key: string]: JsonTree };

export function toJsonText(tree: JsonTree): string {
  if (tree instanceof RawJson) return tree.text;
  if (tree instanceof Entries) return `{${tree.entries.map(([key, value]) => `${JSON.stringify(key)}:${toJsonText(value)}`).join(',')}}`;
  if (Array.isArray(tree)) return `[${tree.map(toJsonText).join(',')}]`;
  if (tree !== null && typeof tree === 'object') {
    return `{${Object.entries(tree).map(([key, value]) => `${JSON.stringify(key)}:${toJsonText(value)}`).join(',')}}`;
  }
  return JSON.stringify(tree);
}

const chars = (codes: number[]) => codes.map((code) => String.fromCharCode(code));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

export const controlChar = fc.constantFrom(...chars([...range(0, 31), 127]));
export const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
/** Characters String.prototype.trim removes (JavaScript's WhiteSpace and LineTerminator). */
export const trimmable = fc.constantFrom(' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\ufeff', '\u2028', '\u2029', '\u3000', '\u2003');

export const SPECIAL_STRINGS = [
  '',
  ' ',
  '\t',
  '\n \r\n',
  '\u0000',
  'a\u0000b',
  '\u00a0',
  '\ufeff',
  '\u200b',
  '\u2028',
  '\ud800',
  'a\udfff',
  '😀',
  'e\u0301',
  '\u202eevil',
  '\u001b[31mred',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '0',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  "'; DROP TABLE markets; --",
  "' OR '1'='1",
  '%00',
  '%',
  '%zz',
  '../..',
  '/',
  '//',
  '\\',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'SELECT 1',
  'id:1',
  'Bearer x',
] as const;

export const junkString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...SPECIAL_STRINGS), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 2 },
  { arbitrary: fc.string({ unit: fc.oneof(controlChar, loneSurrogate, trimmable, fc.constantFrom('a', '/', '%')), maxLength: 12 }), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.constantFrom('x', 'é', '😀', ' ', '\u0000', '/'), fc.integer({ min: 60, max: 5000 }))
      .map(([unit, count]) => unit.repeat(count)),
    weight: 1,
  },
);

/** A string that is non-blank after trimming, with hostile but storable content mixed in. */
export const plausibleText = (max: number): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.string({ minLength: 1, maxLength: 30 }), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 15 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 15 }), weight: 1 },
    {
      arbitrary: fc
        .tuple(fc.string({ unit: trimmable, maxLength: 3 }), fc.string({ minLength: 1, maxLength: 10 }), fc.string({ unit: trimmable, maxLength: 3 }))
        .map(([before, core, after]) => before + core + after),
      weight: 2,
    },
    { arbitrary: fc.constantFrom('y'.repeat(max), ` ${'y'.repeat(max)} `, 'y'.repeat(max + 1), '😀'.repeat(max)), weight: 1 },
    { arbitrary: fc.constantFrom("'; DROP TABLE disputes; --", 'SELECT * FROM markets', 'a\u0000b', '\u0000', 'x\ud800y'), weight: 1 },
  );

/** Numbers as they may appear in JSON text, including those JavaScript cannot hold. */
export const NUMBER_TOKENS = [
  '0',
  '-0',
  '-1',
  '1.5',
  '1.0',
  '1e0',
  '1E2',
  '0.1e1',
  '123e-2',
  '1e309',
  '-1e309',
  '1E400',
  '5e-324',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '-9223372036854775809',
  '99999999999999999999999999999999999999',
];

/** An arbitrary JSON value, sometimes deeply nested (to the body limit and beyond). */
export const junkJson: fc.Arbitrary<JsonTree> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonTree>, weight: 5 },
  { arbitrary: fc.constantFrom(...NUMBER_TOKENS).map((token) => new RawJson(token)), weight: 3 },
  { arbitrary: junkString, weight: 3 },
  { arbitrary: fc.constantFrom<JsonTree>(null, true, false, [], {}, [1], ['a'], { id: 1 }, [[[]]]), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.integer({ min: 50, max: 20000 }), fc.constantFrom('array', 'object'))
      .map(([depth, kind]) => new RawJson(kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
    weight: 1,
  },
);

/** Broken JSON and other non-JSON text. */
export const brokenJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"market_id":1',
    '{"market_id":}',
    "{'market_id':1}",
    '{market_id:1}',
    '{"a":1,}',
    '[1,]',
    'NaN',
    'undefined',
    '{"a":"\\x41"}',
    '{"a":"\\u12"}',
    '{"a":"\u0000"}',
    '\u0000',
    '\ufeff{}',
    ' ',
    '\n',
    'market_id=1&reason_text=x',
    '<xml/>',
    '--boundary\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--boundary--',
    '{"a":1}{"b":2}',
    '{"a":1} x',
    '"\\ud800"',
    'true false',
  ),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.jsonValue({ maxDepth: 2 }).chain((value) => {
    const text = JSON.stringify(value);
    return fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((cut) => text.slice(0, cut));
  }),
);

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every UTF-8 byte except the unreserved characters (lone surrogates become U+FFFD). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Bytes that may appear raw in a request-target (Node rejects controls, space and non-ASCII). */
const WIRE_SAFE = range(0x21, 0x7e)
  .map((code) => String.fromCharCode(code))
  .filter((char) => char !== '#');

export const percentJunk = fc.constantFrom('%', '%%', '%2', '%zz', '%G0', '%00', '%FF', '%C0%AF', '%E0%A4', '%ED%A0%80', '%F4%90%80%80', '%25', '%2F', '%5C', '%2e%2e', '%u0041', '%0a', '%20');

/** A request-target fragment as it goes on the wire: only bytes Node's parser accepts. */
export const wireText = (excluded: string[] = []): fc.Arbitrary<string> => {
  const safe = WIRE_SAFE.filter((char) => !excluded.includes(char));
  return fc.oneof(
    { arbitrary: junkString.map(percentEncode), weight: 4 },
    { arbitrary: fc.string({ unit: fc.constantFrom(...safe), maxLength: 20 }), weight: 3 },
    { arbitrary: fc.array(fc.oneof(percentJunk, fc.constantFrom(...safe)), { maxLength: 8 }).map((parts) => parts.join('')), weight: 2 },
  );
};

/** Header values Node's HTTP client and server accept (tab, visible ASCII and latin1 bytes). */
export const LEGAL_HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code)), maxLength: 10 }),
  fc.string({ unit: fc.constantFrom(' ', '\t', '\u00a0', 'a', 'Bearer', '=', ','), maxLength: 8 }),
  fc.constantFrom('', ' ', '\t', 'null', 'undefined', 'Bearer', 'Bearer ', 'Bearer  ', 'Basic YTpi', "' OR 1=1 --", 'x'.repeat(4000)),
);
