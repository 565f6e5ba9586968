import { describe, expect, it } from '@jest/globals';
import { EnvelopeValidationPipe } from '../common/envelope-validation.pipe';
import { ApiError } from '../common/error-catalogue';
import { PublicMarketQuery } from './public-market-query.dto';

/** The query as the global pipe gives it to the handler. */
const parsePublicMarketQuery = (query: Record<string, unknown>) =>
  new EnvelopeValidationPipe().transform(query, { type: 'query', metatype: PublicMarketQuery }) as Promise<PublicMarketQuery>;

async function failure(query: Record<string, unknown>): Promise<{ code: number; detail: string }> {
  try {
    await parsePublicMarketQuery(query);
  } catch (error) {
    const { code, detail } = error as ApiError;
    return { code, detail };
  }
  throw new Error('expected a failure');
}

describe('PublicMarketQuery under the global pipe', () => {
  it('normalizes slug and source', async () => {
    expect({ ...(await parsePublicMarketQuery({ slug: ' /a/b/ ', source: ' acme ' })) }).toEqual({ slug: 'a/b', source: 'acme' });
  });

  it('requires a slug first, then a source', async () => {
    expect(await failure({})).toEqual({ code: 4100, detail: 'slug is required' });
    expect(await failure({ slug: ' / ', source: 'acme' })).toEqual({ code: 4100, detail: 'slug is required' });
    expect(await failure({ slug: 'a' })).toEqual({ code: 4101, detail: 'source is required' });
    expect(await failure({ slug: 'a', source: '  ' })).toEqual({ code: 4101, detail: 'source is required' });
    expect(await failure({ slug: ['a', 'b'], p: '1' })).toEqual({ code: 4101, detail: 'source is required' });
    expect(await failure({ source: ['a', 'b'], slug: '\u0000' })).toEqual({ code: 4000, detail: 'slug must not contain NUL characters; source must be given once, as a string' });
  });

  it('names every other problem in one 4000', async () => {
    expect(await failure({ slug: ['a', 'b'], source: 'acme', page: '2' })).toEqual({
      code: 4000,
      detail: 'slug must be given once, as a string; page is not a known parameter',
    });
    expect((await failure({ slug: 'x'.repeat(257), source: 'acme' })).detail).toBe('slug must be at most 256 characters');
  });

  it('names ten unknown parameters and counts the rest', async () => {
    const query: Record<string, unknown> = { slug: 'a', source: 'acme' };
    for (let n = 0; n < 998; n++) query[`p${n}`] = '1';
    const names = Array.from({ length: 10 }, (_, n) => `p${n} is not a known parameter`);
    expect(await failure(query)).toEqual({ code: 4000, detail: `${names.join('; ')}; and 988 more` });
  });

  it('repeats at most 64 characters of a name the client chose', async () => {
    const name = `a${'[b]'.repeat(3_000)}`;
    expect(await failure({ slug: 'a', source: 'acme', [name]: '1' })).toEqual({ code: 4000, detail: `${name.slice(0, 64)}… is not a known parameter` });
  });
});
