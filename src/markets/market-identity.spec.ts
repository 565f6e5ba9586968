import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { normalizeSource } from '../auth/partner-source';
import { normalizeSlug } from './market-identity';

describe('normalizeSlug', () => {
  it.each([
    ['will-it-rain', 'will-it-rain'],
    ['  will-it-rain  ', 'will-it-rain'],
    ['/will-it-rain/', 'will-it-rain'],
    ['///will-it-rain//', 'will-it-rain'],
    [' / will-it-rain / ', 'will-it-rain'],
    ['sports/nba/finals', 'sports/nba/finals'],
    ['/sports/nba/finals/', 'sports/nba/finals'],
    ['a/ /', 'a'],
    [' / /b\n/\t', 'b'],
    ['\u00a0/x/\u3000', 'x'],
    ['//', ''],
    ['   ', ''],
  ])('%j → %j', (raw, expected) => {
    expect(normalizeSlug(raw)).toBe(expected);
  });

  it('is a fixed point: the canonical slug a market is echoed with normalizes to itself', () => {
    const piece = fc.constantFrom('/', ' ', '\t', '\n', '\u00a0', 'a', 'b-c', '.');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const once = normalizeSlug(pieces.join(''));
        expect(normalizeSlug(once)).toBe(once);
        expect(once).toBe(once.trim());
        expect(once.startsWith('/') || once.endsWith('/')).toBe(false);
      }),
    );
  });
});

describe('normalizeSource', () => {
  it('trims whitespace and keeps the rest as is', () => {
    expect(normalizeSource('  acme ')).toBe('acme');
    expect(normalizeSource('/acme/')).toBe('/acme/');
  });
});
