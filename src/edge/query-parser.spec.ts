import { describe, expect, it } from '@jest/globals';
import { MAX_QUERY_PARAMETERS, parseQuery } from './query-parser';

describe('parseQuery', () => {
  it('reads parameters as Express\'s simple parser does', () => {
    expect(parseQuery('slug=a%20b&source=x&tag=1&tag=2')).toEqual({ slug: 'a b', source: 'x', tag: ['1', '2'] });
    expect(parseQuery('')).toEqual({});
  });

  it('keeps every one of 1,000 parameters', () => {
    const text = [...Array.from({ length: MAX_QUERY_PARAMETERS - 1 }, (_, i) => `p${i}=1`), 'slug=last'].join('&');
    expect(parseQuery(text).slug).toBe('last');
  });

  it('refuses more than 1,000 parameters with 4000 instead of dropping the rest', () => {
    const text = [...Array.from({ length: 1100 }, (_, i) => `p${i}=1`), 'slug=last'].join('&');
    expect(() => parseQuery(text)).toThrow(expect.objectContaining({ code: 4000, detail: 'a query may hold at most 1000 parameters' }));
  });
});
