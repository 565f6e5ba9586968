import { length } from 'class-validator';
import querystring from 'node:querystring';
import { parseRfc3339 } from '../../src/common/rfc3339';
import { normalizeSlug } from '../../src/markets/market-identity';

/**
 * What the contract says the service must answer, computed from the request alone (and the
 * database state): the fuzz properties compare every answer with these models.
 */

export type Query = Record<string, string | string[] | undefined>;

/** What Express 5's default ("simple") query parser makes of the request-target. */
export function serverQuery(target: string): Query {
  const mark = target.indexOf('?');
  return mark < 0 ? {} : (querystring.parse(target.slice(mark + 1)) as Query);
}

const own = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key);

/**
 * A string PostgreSQL stores exactly as sent: no NUL character (text cannot hold it) and no
 * unpaired UTF-16 surrogate (JSON's "\ud800" has no UTF-8 form; jsonb rejects it, text would
 * get U+FFFD). Anything else is 4000.
 */
export const storable = (text: string) => !/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

/** README "Partner API details": 4100, then 4101, then 4000 for anything else. */
export function publicMarketModel(query: Query): { code: number; source?: string; slug?: string } {
  let invalid = false;
  const read = (name: string, max: number, normalize: (raw: string) => string): string | undefined => {
    const value = query[name];
    if (value === undefined) return '';
    if (typeof value !== 'string') {
      invalid = true;
      return undefined;
    }
    const normalized = normalize(value);
    if (normalized.length > max || !storable(normalized)) {
      invalid = true;
      return undefined;
    }
    return normalized;
  };
  const slug = read('slug', 256, normalizeSlug);
  const source = read('source', 64, (raw) => raw.trim());
  if (slug === '') return { code: 4100 };
  if (source === '') return { code: 4101 };
  if (Object.keys(query).some((name) => name !== 'slug' && name !== 'source')) invalid = true;
  return invalid ? { code: 4000 } : { code: 0, source, slug };
}

/** A required text field: a string, non-empty after trimming, at most `max` characters, storable. */
export const validText = (value: unknown, max: number) =>
  typeof value === 'string' && length(value.trim(), 1, max) && storable(value.trim());

/** Names and new slugs, which people type: no character that does not show (in the BMP, as the OpenAPI pattern can name). */
export const visible = (text: string) =>
  ![...text].some((char) => char.length === 1 && /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u.test(char));

/** A path or body id: a positive integer JavaScript holds exactly. */
export function validBodyId(value: unknown): boolean {
  const id = typeof value === 'string' && /^\d{1,20}$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0;
}

/** A path id as the service takes one: decimal digits (leading zeros too), a positive safe integer. */
export const validPathId = (decoded: string) => /^\d{1,20}$/.test(decoded) && Number.isSafeInteger(Number(decoded)) && Number(decoded) > 0;

/** The id a valid path id names (`007` is 7), as the tables key their rows. */
export const canonicalPathId = (decoded: string | undefined) => (decoded !== undefined && validPathId(decoded) ? String(Number(decoded)) : decoded);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** 'valid', 'invalid' (→ 4000), or 'unsure' where the model does not decide. */
export type Verdict = 'valid' | 'invalid' | 'unsure';

function fields(body: Record<string, unknown>, known: string[]): boolean {
  return Object.keys(body).every((key) => known.includes(key));
}

/** Arrays/objects nesting levels of a JSON value (0 for a scalar), without recursion. */
export function depthOf(value: unknown): number {
  let max = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    max = Math.max(max, depth);
    if (typeof item === 'object' && item !== null) for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return max;
}

/** A body field may nest arrays/objects at most this deep (README: "bodies"); deeper → 4000. */
export const MAX_FIELD_DEPTH = 16;
const tooDeep = (body: Record<string, unknown>) => Object.values(body).some((value) => depthOf(value) > MAX_FIELD_DEPTH);

export const DISPUTE_TEXT_FIELDS = { submitter_id: 128, submitter_name: 200, submitter_selection: 200, reason_text: 4000 } as const;

export function submitBodyModel(body: Record<string, unknown>): Verdict {
  const known = ['market_id', ...Object.keys(DISPUTE_TEXT_FIELDS), 'submitted_at'];
  const ok =
    !tooDeep(body) &&
    fields(body, known) &&
    validBodyId(body.market_id) &&
    Object.entries(DISPUTE_TEXT_FIELDS).every(([name, max]) => validText(body[name], max));
  return ok ? 'valid' : 'invalid';
}

export const ROLES = ['admin', 'reviewer'];
export const CONFIDENCES = ['VERY_HIGH', 'HIGH', 'MEDIUM', 'LOW', 'VERY_LOW'];
export const CHAINS = ['base', 'bsc'];
export const SOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const dtoModels: Record<string, (body: Record<string, unknown>) => Verdict> = {
  reviewer: (body) =>
    fields(body, ['name', 'role']) && validText(body.name, 200) && visible((body.name as string).trim()) && ROLES.includes(body.role as string)
      ? 'valid'
      : 'invalid',
  partner: (body) =>
    fields(body, ['source', 'name']) &&
    validText(body.source, 64) &&
    SOURCE_PATTERN.test((body.source as string).trim()) &&
    validText(body.name, 200)
      ? 'valid'
      : 'invalid',
  market: (body) =>
    fields(body, ['source', 'slug']) &&
    validText(body.source, 64) &&
    typeof body.slug === 'string' &&
    length(normalizeSlug(body.slug), 1, 256) &&
    storable(normalizeSlug(body.slug)) &&
    visible(normalizeSlug(body.slug))
      ? 'valid'
      : 'invalid',
  resolve: (body) => {
    const proofs = body.proofs;
    if (
      !fields(body, ['verdict', 'confidence', 'reasoning', 'proofs', 'resolved_at']) ||
      !validText(body.verdict, 200) ||
      !CONFIDENCES.includes(body.confidence as string) ||
      !validText(body.reasoning, 10000) ||
      !Array.isArray(proofs) ||
      proofs.length < 1 ||
      proofs.length > 20 ||
      (body.resolved_at !== undefined && body.resolved_at !== null && parseRfc3339(body.resolved_at) === undefined)
    ) {
      return 'invalid';
    }
    if (proofs.some((proof) => Array.isArray(proof))) return 'unsure';
    return proofs.every(
      (proof) => isPlainObject(proof) && fields(proof, ['chain', 'tx_hash']) && CHAINS.includes(proof.chain as string) && validText(proof.tx_hash, 200),
    )
      ? 'valid'
      : 'invalid';
  },
  decision: (body) =>
    fields(body, ['type', 'reason_text']) && ['keep', 'override'].includes(body.type as string) && validText(body.reason_text, 4000)
      ? 'valid'
      : 'invalid',
};

export const adminBodyModels: Record<keyof typeof dtoModels, (body: Record<string, unknown>) => Verdict> = Object.fromEntries(
  Object.entries(dtoModels).map(([name, model]) => [name, (body: Record<string, unknown>) => (tooDeep(body) ? 'invalid' : model(body))]),
);

/** decodeCursor's contract: a token this service issued, naming an id a bigint column can hold. */
export function cursorId(cursor: string): string | undefined {
  if (!/^[0-9a-z]{1,12}$/.test(cursor)) return undefined;
  return [...cursor].reduce((id, digit) => id * 36n + BigInt(Number.parseInt(digit, 36)), 0n).toString();
}

/** A listing's filter besides limit and cursor: the dispute queue's status, the partners' q. */
export type PageFilter = 'status' | 'q';

/** The page a listing's query string asks for (limit, cursor and its filter, if any), or 4000. */
export function pageQueryModel(
  query: Query,
  filter?: PageFilter,
): { code: 4000 } | { code: 0; limit: number; cursor?: string; status?: string; q?: string } {
  const known = filter ? ['limit', 'cursor', filter] : ['limit', 'cursor'];
  if (!fields(query, known)) return { code: 4000 };
  let limit = 50;
  if (own(query, 'limit')) {
    const raw = query.limit;
    if (typeof raw !== 'string' || !/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > 100) return { code: 4000 };
    limit = Number(raw);
  }
  let cursor: string | undefined;
  if (own(query, 'cursor')) {
    if (typeof query.cursor !== 'string') return { code: 4000 };
    cursor = cursorId(query.cursor);
    if (cursor === undefined) return { code: 4000 };
  }
  let status: string | undefined;
  if (filter === 'status' && own(query, 'status')) {
    if (query.status !== 'open' && query.status !== 'closed') return { code: 4000 };
    status = query.status;
  }
  let q: string | undefined;
  if (filter === 'q' && own(query, 'q')) {
    // Taken as given (not trimmed): 1 to 200 characters (code points), storable.
    if (typeof query.q !== 'string' || [...query.q].length < 1 || [...query.q].length > 200 || !storable(query.q)) return { code: 4000 };
    q = query.q;
  }
  return { code: 0, limit, cursor, status, q };
}

/**
 * Which of `texts` contain `q` in any letter case, as ILIKE finds it; undefined where that
 * depends on the database's locale (a letter outside ASCII that has a case), so the model
 * does not decide.
 */
export function containsIgnoringCase(texts: string[], q: string): boolean | undefined {
  const ascii = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  const unicode = (text: string) => text.toLowerCase();
  const byAscii = texts.some((text) => ascii(text).includes(ascii(q)));
  return byAscii === texts.some((text) => unicode(text).includes(unicode(q))) ? byAscii : undefined;
}

/** What the app reads of a decoded body text: the value (undefined: none), or a parse failure. */
export function parsedBody(text: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (text === undefined) return { ok: false }; // bytes that are not text
  if (text.length === 0) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export { isPlainObject };
