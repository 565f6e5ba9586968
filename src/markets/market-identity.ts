/** Canonical forms of a market's (source, slug) identity (contract §3). */

export const SLUG_MAX_LENGTH = 256;

/** " /a/b/ " → "a/b". A fixed point, so the slug a market is echoed with finds it again. */
export function normalizeSlug(raw: string): string {
  return raw.replace(/^[\s/]+|[\s/]+$/g, '');
}
