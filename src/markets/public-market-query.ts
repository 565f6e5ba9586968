import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { Problems, shown } from '../common/problems';
import { isStorableText, isWithinLength } from '../common/validation';
import { normalizeSource, SOURCE_MAX_LENGTH } from '../auth/partner-source';
import { normalizeSlug, SLUG_MAX_LENGTH } from './market-identity';

export interface PublicMarketQuery {
  slug: string;
  source: string;
}

const KNOWN_PARAMETERS = new Set(['slug', 'source']);

/** Validates get_public_market's query: 4100 without a slug, 4101 without a source, then one 4000 naming the rest. */
export function parsePublicMarketQuery(query: Record<string, unknown>): PublicMarketQuery {
  const problems = new Problems();
  const slug = readText(query.slug, 'slug', SLUG_MAX_LENGTH, normalizeSlug, problems);
  const source = readText(query.source, 'source', SOURCE_MAX_LENGTH, normalizeSource, problems);

  if (slug === '') throw new ApiError(ErrorCatalogue.SLUG_REQUIRED);
  if (source === '') throw new ApiError(ErrorCatalogue.SOURCE_REQUIRED);
  for (const name of Object.keys(query)) {
    if (!KNOWN_PARAMETERS.has(name)) problems.add(`${shown(name)} is not a known parameter`);
  }
  if (problems.found) throw problems.error();
  return { slug: slug!, source: source! };
}

/** '' when absent or blank, undefined when present but unusable (a problem is recorded). */
function readText(
  value: unknown,
  name: string,
  maxLength: number,
  normalize: (raw: string) => string,
  problems: Problems,
): string | undefined {
  if (value === undefined) return '';
  if (typeof value !== 'string') {
    problems.add(`${name} must be given once, as a string`);
    return undefined;
  }
  const normalized = normalize(value);
  if (!isWithinLength(normalized, maxLength)) {
    problems.add(`${name} must be at most ${maxLength} characters`);
    return undefined;
  }
  // PostgreSQL text cannot hold U+0000; no market has one.
  if (!isStorableText(normalized)) {
    problems.add(`${name} must not contain NUL characters`);
    return undefined;
  }
  return normalized;
}
