import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCatalogue } from '../../src/common/error-catalogue';
import type { RawResponse } from './fuzz-http';

export const CATALOGUE_MSG = new Map<number, string>(Object.values(ErrorCatalogue).map((entry) => [entry.code, entry.msg]));

/** A checked envelope: `data` is set exactly when `code` is 0, `detail` exactly when it is not. */
export type Envelope = { code: number; msg: string; detail?: string; data?: Record<string, unknown> };

/** Every class name declared in src/: none may reach a response body. */
function ourClassNames(): string[] {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/\bclass\s+([A-Za-z_]\w*)/g)) names.add(match[1]);
      }
    }
  };
  walk(join(process.cwd(), 'src'));
  return [...names];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// What an error body must never carry: stack frames, SQL, driver/ORM internals, SQLSTATEs,
// JavaScript error names, and the names of our own classes.
const LEAKS: RegExp[] = [
  /\n\s*at /,
  / {4}at /,
  /\bat [\w.<>]+ \(/,
  /\.[cm]?[jt]s:\d/,
  /node_modules|node:internal/,
  /\b(SELECT|INSERT|UPDATE|DELETE FROM|RETURNING|WHERE)\b/,
  /\brelation\b|syntax error at|violates|duplicate key|invalid input syntax|out of range for type|invalid byte sequence|character with byte sequence|null value in column/i,
  /QueryFailedError|TypeORM|typeorm|EntityManager|EntityNotFound|DriverError|pg-protocol|\bpg\b/,
  /SQLSTATE|\b(?:0[8A]|2[2-5]|4[02]|5[3-8]|XX|P0|F0|HV)[0-9A-Z]{3}\b/,
  /\b(TypeError|RangeError|URIError|SyntaxError|ReferenceError|Error:)|Cannot read propert|is not a function|undefined|\[object /,
  /Failed to decode|Unexpected token|Unexpected end|in JSON at position|incorrect header check|unknown compression|Z_[A-Z_]+_ERROR/,
  new RegExp(`\\b(${ourClassNames().map(escape).join('|')})\\b`),
];

export class PropertyFailure extends Error {}

function fail(message: string, response: RawResponse): never {
  throw new PropertyFailure(`${message}\n  status ${response.status}, content-type ${response.headers['content-type']}\n  body ${response.body.slice(0, 800)}`);
}

/**
 * Checks one response against the envelope contract and returns its body.
 * `echoes`: caller-supplied names the server may legitimately repeat in `detail`
 * (an unknown field or parameter is named there); they are removed before the leak scan.
 * `allowed`: the codes this request may get.
 */
export function checkEnvelope(response: RawResponse, allowed: ReadonlySet<number>, echoes: string[] = []): Envelope {
  if (response.status !== 200) fail('HTTP status is not 200', response);
  if (!/^application\/json(;|$)/i.test(response.headers['content-type'] ?? '')) fail('content-type is not JSON', response);
  if (!response.headers['x-request-id']) fail('no x-request-id header', response);
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    fail('body is not JSON', response);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('body is not an object', response);
  const envelope = body as Record<string, unknown>;
  const keys = Object.keys(envelope).sort().join(',');
  if (envelope.code === 0) {
    if (keys !== 'code,data,msg') fail(`success envelope has keys ${keys}`, response);
    if (envelope.msg !== 'success') fail('success msg is not "success"', response);
    const data = envelope.data;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) fail('success data is not an object', response);
  } else {
    if (keys !== 'code,detail,msg') fail(`error envelope has keys ${keys}`, response);
    if (typeof envelope.code !== 'number' || !CATALOGUE_MSG.has(envelope.code)) fail('code is not in the catalogue', response);
    if (envelope.code === 5000) fail('code 5000 (internal error)', response);
    if (envelope.msg !== CATALOGUE_MSG.get(envelope.code as number)) fail('msg is not the catalogue msg of the code', response);
    if (typeof envelope.detail !== 'string' || envelope.detail.length === 0) fail('detail is not a non-empty string', response);
    let scanned = `${envelope.msg}\n${envelope.detail}`;
    // A long name is repeated cut (shown(): its first 64 characters and an ellipsis).
    const repeated = echoes.flatMap((text) => (text.length > 64 ? [text, `${text.slice(0, 64)}…`] : [text]));
    for (const echo of repeated.filter((text) => text.length > 0).sort((a, b) => b.length - a.length)) {
      scanned = scanned.split(echo).join('\u2400');
    }
    for (const leak of LEAKS) if (leak.test(scanned)) fail(`internal detail leaked (${leak})`, response);
  }
  if (!allowed.has(envelope.code as number)) fail(`code ${envelope.code} is not one of ${[...allowed].join(', ')}`, response);
  return envelope as Envelope;
}
