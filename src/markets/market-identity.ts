/** Canonical forms of a market's (source, slug) identity (contract §3). */

export const SLUG_MAX_LENGTH = 256;

/**
 * Trims whitespace and any leading or trailing `/`, interleaved or not: " /nba/finals/ " and
 * "a/ /" → "nba/finals" and "a". The canonical form is a fixed point, so that the slug a market
 * is echoed with finds it again (`\s` is the set `trim` removes).
 */
export function normalizeSlug(raw: string): string {
  return raw.replace(/^[\s/]+|[\s/]+$/g, '');
}
