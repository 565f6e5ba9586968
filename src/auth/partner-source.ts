/** A partner's source (contract §3): issued at integration, it names the partner in paths and queries. */
export const SOURCE_MAX_LENGTH = 64;
export const SOURCE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';

export function normalizeSource(raw: string): string {
  return raw.trim();
}
