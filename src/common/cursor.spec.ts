import { describe, expect, it } from '@jest/globals';
import { decodeCursor, encodeCursor, nextPageCursor } from './cursor';

describe('cursors', () => {
  it('round-trips an id, up to the largest bigint', () => {
    expect(decodeCursor(encodeCursor('12345'))).toBe('12345');
    expect(decodeCursor(encodeCursor(7))).toBe('7');
    expect(encodeCursor('9223372036854775807')).toHaveLength(13); // never issued: ids stay far below
  });

  it('reads every token of the documented form as an id a bigint holds', () => {
    expect(decodeCursor('zzzzzzzzzzzz')).toBe(String(36n ** 12n - 1n));
    expect(BigInt(decodeCursor('zzzzzzzzzzzz')) < 2n ** 63n).toBe(true);
    expect(decodeCursor('0')).toBe('0');
  });

  it.each([[''], ['ABC'], ['not a cursor!'], ['1zzzzzzzzzzzz'], ['-1'], ['aWQ6MTc']])('rejects %j with 4000', (cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 4000 }));
  });

  it("names a bounded page's last row while more rows follow", () => {
    expect(nextPageCursor({ hasMore: true, lastId: '71' })).toBe('1z');
    expect(nextPageCursor({ hasMore: false, lastId: '71' })).toBeNull();
    expect(nextPageCursor({ hasMore: false, lastId: null })).toBeNull();
  });
});
