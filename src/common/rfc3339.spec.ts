import { describe, expect, it } from '@jest/globals';
import { parseRfc3339 } from './rfc3339';

describe('parseRfc3339', () => {
  it.each([
    ['2026-03-01T12:00:00Z', '2026-03-01T12:00:00.000Z'],
    ['2026-03-01T12:00:00.123Z', '2026-03-01T12:00:00.123Z'],
    ['2026-03-01T14:30:00+02:30', '2026-03-01T12:00:00.000Z'],
    ['2026-03-01t12:00:00z', '2026-03-01T12:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('accepts %s', (raw, iso) => {
    expect(parseRfc3339(raw)?.toISOString()).toBe(iso);
  });

  it.each([
    [undefined],
    [null],
    [1767225600000],
    [''],
    ['yesterday'],
    ['2026-03-01'],
    ['2026-03-01T12:00:00'],
    ['2026-13-01T12:00:00Z'],
    ['2025-02-29T12:00:00Z'],
    ['2026-03-01T24:00:00Z'],
    ['2026-03-01T12:00:00+25:00'],
  ])('rejects %j', (raw) => {
    expect(parseRfc3339(raw)).toBeUndefined();
  });
});
