import { describe, expect, it } from '@jest/globals';
import { displayPrefix, generateKey, hashKey } from './key-hashing';

describe('key hashing', () => {
  it('hashes with SHA-256 in hex', () => {
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('generates distinct, typed keys whose stored form is only the hash and prefix', () => {
    const first = generateKey('partner');
    const second = generateKey('partner');
    expect(first.key).toMatch(/^sok_[A-Za-z0-9_-]{43}$/);
    expect(generateKey('admin').key).toMatch(/^soa_/);
    expect(first.key).not.toBe(second.key);
    expect(first.hash).toBe(hashKey(first.key));
    expect(first.prefix).toBe(displayPrefix(first.key));
    expect(first.prefix).toHaveLength(12);
    expect(first.key.startsWith(first.prefix)).toBe(true);
  });
});
