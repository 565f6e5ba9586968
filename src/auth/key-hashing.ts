import { createHash, randomBytes } from 'node:crypto';

export type KeyKind = 'partner' | 'admin';

const KIND_PREFIX: Record<KeyKind, string> = { partner: 'sok_', admin: 'soa_' };
const DISPLAY_PREFIX_LENGTH = 12;

export interface GeneratedKey {
  /** The secret, shown to its owner exactly once. */
  key: string;
  /** What lists show so a key can be recognised: its first characters. */
  prefix: string;
  /** The only form that is stored. */
  hash: string;
}

/** SHA-256 in hex: keys carry 256 random bits, so a fast hash is the right tool (no salt needed). */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(kind: KeyKind): GeneratedKey {
  const key = KIND_PREFIX[kind] + randomBytes(32).toString('base64url');
  return { key, prefix: displayPrefix(key), hash: hashKey(key) };
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
