import { describe, expect, it } from '@jest/globals';
import { decodeCursor, encodeCursor } from './cursor';

describe('cursors', () => {
  it('round-trips an id', () => {
    expect(decodeCursor(encodeCursor('12345'))).toBe('12345');
    expect(decodeCursor(encodeCursor(7))).toBe('7');
  });

  it.each([[''], ['12'], ['not a cursor!'], [Buffer.from('id:0').toString('base64url')], [Buffer.from('id:-1').toString('base64url')]])(
    'rejects %j with 4000',
    (cursor) => {
      expect(() => decodeCursor(cursor)).toThrow(expect.objectContaining({ code: 4000 }));
    },
  );
});
