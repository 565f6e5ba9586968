import { describe, expect, it } from '@jest/globals';
import { pageOf } from './bounded-page';

const rows = (count: number, found: number) => Array.from({ length: count }, (_, n) => ({ id: String(10 + n), item: n, found: String(found) }));

describe('pageOf', () => {
  it('says more follow past the limit (the page query found one more row)', () => {
    expect(pageOf(rows(3, 3), 2)).toEqual({ items: [0, 1], hasMore: true, lastId: '11' });
    expect(pageOf(rows(2, 2), 2)).toEqual({ items: [0, 1], hasMore: false, lastId: '11' });
  });

  it('says more follow when the byte budget cut the page short of what was found', () => {
    expect(pageOf(rows(2, 3), 5)).toEqual({ items: [0, 1], hasMore: true, lastId: '11' });
    expect(pageOf(rows(3, 3), 5)).toEqual({ items: [0, 1, 2], hasMore: false, lastId: '12' });
  });

  it('is empty and final when nothing was found', () => {
    expect(pageOf([], 5)).toEqual({ items: [], hasMore: false, lastId: null });
  });
});
