import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../common/error-catalogue';
import { parsePublicMarketQuery } from './public-market-query';

function failure(query: Record<string, unknown>): { code: number; detail: string } {
  try {
    parsePublicMarketQuery(query);
  } catch (error) {
    const { code, detail } = error as ApiError;
    return { code, detail };
  }
  throw new Error('expected a failure');
}

describe('parsePublicMarketQuery', () => {
  it('normalizes slug and source', () => {
    expect(parsePublicMarketQuery({ slug: ' /a/b/ ', source: ' acme ' })).toEqual({ slug: 'a/b', source: 'acme' });
  });

  it('requires a slug first, then a source', () => {
    expect(failure({})).toEqual({ code: 4100, detail: 'slug is required' });
    expect(failure({ slug: ' / ', source: 'acme' })).toEqual({ code: 4100, detail: 'slug is required' });
    expect(failure({ slug: 'a' })).toEqual({ code: 4101, detail: 'source is required' });
    expect(failure({ slug: 'a', source: '  ' })).toEqual({ code: 4101, detail: 'source is required' });
  });

  it('names every other problem in one 4000', () => {
    expect(failure({ slug: ['a', 'b'], source: 'acme', page: '2' })).toEqual({
      code: 4000,
      detail: 'slug must be given once, as a string; page is not a known parameter',
    });
    expect(failure({ slug: 'x'.repeat(257), source: 'acme' }).detail).toBe('slug must be at most 256 characters');
  });

  it('names ten unknown parameters and counts the rest', () => {
    const query: Record<string, unknown> = { slug: 'a', source: 'acme' };
    for (let n = 0; n < 998; n++) query[`p${n}`] = '1';
    const names = Array.from({ length: 10 }, (_, n) => `p${n} is not a known parameter`);
    expect(failure(query)).toEqual({ code: 4000, detail: `${names.join('; ')}; and 988 more` });
  });

  it('repeats at most 64 characters of a name the client chose', () => {
    const name = `a${'[b]'.repeat(3_000)}`;
    expect(failure({ slug: 'a', source: 'acme', [name]: '1' })).toEqual({ code: 4000, detail: `${name.slice(0, 64)}… is not a known parameter` });
  });
});
