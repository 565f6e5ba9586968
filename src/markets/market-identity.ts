/** Canonical forms of a market's (source, slug) identity (contract §3). */

export const SLUG_MAX_LENGTH = 256;
export const SOURCE_MAX_LENGTH = 64;

/** Trims whitespace and any leading or trailing `/`: " /nba/finals/ " → "nba/finals". */
export function normalizeSlug(raw: string): string {
  return raw.trim().replace(/^\/+|\/+$/g, '').trim();
}

export function normalizeSource(raw: string): string {
  return raw.trim();
}
