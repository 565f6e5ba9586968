import { createHash } from 'node:crypto';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';

/** 1 to 255 printable ASCII characters (contract §8). */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** The request's Idempotency-Key, if sent (4000 if it is not one). Each header line apart (`headersDistinct`): Node joins repeated ones with a comma. */
export function idempotencyKeyOf(headerLines: readonly string[] | undefined): string | undefined {
  if (headerLines === undefined) return undefined;
  const [key] = headerLines;
  if (headerLines.length !== 1 || !IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError(ErrorCatalogue.INVALID_REQUEST, 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once');
  }
  return key;
}

/** SHA-256 of the body as a JSON value: members in any order, numbers as read, are the same request. */
export function requestHashOf(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
