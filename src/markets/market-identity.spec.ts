import { describe, expect, it } from '@jest/globals';
import { normalizeSlug, normalizeSource } from './market-identity';

describe('normalizeSlug', () => {
  it.each([
    ['will-it-rain', 'will-it-rain'],
    ['  will-it-rain  ', 'will-it-rain'],
    ['/will-it-rain/', 'will-it-rain'],
    ['///will-it-rain//', 'will-it-rain'],
    [' / will-it-rain / ', 'will-it-rain'],
    ['sports/nba/finals', 'sports/nba/finals'],
    ['/sports/nba/finals/', 'sports/nba/finals'],
    ['//', ''],
    ['   ', ''],
  ])('%j → %j', (raw, expected) => {
    expect(normalizeSlug(raw)).toBe(expected);
  });
});

describe('normalizeSource', () => {
  it('trims whitespace and keeps the rest as is', () => {
    expect(normalizeSource('  acme ')).toBe('acme');
    expect(normalizeSource('/acme/')).toBe('/acme/');
  });
});
