/** Fuzzing GET /oracle/markets/public: query strings against the model (see test/support/fuzz-suite.ts). */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { headerValue, percentEncode, wireText } from '../support/fuzz-arbitraries';
import { PropertyFailure } from '../support/fuzz-envelope';
import { publicMarketModel, serverQuery } from '../support/fuzz-models';
import { fuzzSuite, runs, SANE_REQUEST_ID, SEED, timeout, UUID } from '../support/fuzz-suite';

describe('fuzzing GET /oracle/markets/public', () => {
  const suite = fuzzSuite();
  const { send, judge, fuzzCase, expectEqual, expectStillServing, publicMarkets } = suite;

  it('GET /oracle/markets/public: any query string gets the code its model prescribes, and the match', async () => {
    const slugWire = fc.oneof(
      fc.constantFrom(...publicMarkets).chain(({ slug }) =>
        fc.constantFrom(
          percentEncode(slug),
          `+${percentEncode(slug)}+`,
          `%20%2F${percentEncode(slug)}%2F%2F%09`,
          `//${percentEncode(slug)}/`,
          percentEncode(slug.toUpperCase()),
          percentEncode(`${slug}\u0000`),
          encodeURI(slug),
        ),
      ),
      wireText(['&']),
    );
    const sourceWire = fc.oneof(fc.constantFrom('acme', 'globex', 'Zeta.Corp_9', '+acme+', '%20acme%09', 'ACME', 'acme%00', 'Zeta.Corp_9%20'), wireText(['&']));
    const nameWire = fc.oneof(
      { arbitrary: fc.constantFrom('slug', 'source'), weight: 6 },
      {
        arbitrary: fc.constantFrom('slug[]', 'source[]', 'slug[0]', 'source[x]', 'SLUG', 'Source', 'sl%75g', '%73ource', 'slug+', 'slug%00', '__proto__', 'constructor', 'hasOwnProperty', 'toString', '', 'limit'),
        weight: 2,
      },
      { arbitrary: wireText(['&', '=']), weight: 1 },
    );
    const param = fc.oneof(
      fc.tuple(nameWire, fc.oneof(slugWire, sourceWire)).map(([name, value]) => `${name}=${value}`),
      nameWire,
      fc.tuple(nameWire, fc.oneof(slugWire, sourceWire), wireText(['&'])).map(([name, value, more]) => `${name}=${value}=${more}`),
    );
    const structured = fc
      .tuple(slugWire, sourceWire, fc.array(param, { maxLength: 2 }), fc.boolean())
      .map(([slug, source, extra, sourceFirst]) => (sourceFirst ? [`source=${source}`, `slug=${slug}`] : [`slug=${slug}`, `source=${source}`]).concat(extra));
    const target = fc
      .tuple(
        fc.constantFrom('/oracle/markets/public', '/oracle/markets/public/'),
        fc.oneof({ arbitrary: structured, weight: 3 }, { arbitrary: fc.array(param, { maxLength: 6 }), weight: 2 }),
        fc.constantFrom('?', '?', '?', '', '?&', '??'),
        fc.constantFrom('&', '&', '&', '&&'),
      )
      .map(([path, params, mark, separator]) => (mark === '' ? path : `${path}${mark}${params.join(separator)}`.slice(0, 8000)));
    const requestId = fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/), headerValue), { freq: 3 });

    await fc.assert(
      fc.asyncProperty(target, requestId, fuzzCase(async (target, requestId) => {
        const response = await send({ method: 'GET', target, headers: requestId === null ? [] : [['X-Request-Id', requestId]] });
        const query = serverQuery(target);
        const model = publicMarketModel(query);
        const { envelope } = await judge('public', response, [model.code], Object.keys(query));
        if (envelope.code === 0) {
          const expected = publicMarkets.filter((market) => market.source === model.source && market.slug === model.slug).map(({ id, source, slug }) => ({ id, source, slug }));
          const got = (envelope.data!.markets as { id: number; source: string; slug: string }[]).map(({ id, source, slug }) => ({ id, source, slug }));
          expectEqual(got, expected, 'markets');
        }
        const echoed = response.headers['x-request-id'];
        const sent = requestId?.replace(/^[ \t]+|[ \t]+$/g, '');
        if (sent && SANE_REQUEST_ID.test(sent) ? echoed !== sent : !UUID.test(echoed)) {
          throw new PropertyFailure(`x-request-id ${JSON.stringify(echoed)} for ${JSON.stringify(requestId)}`);
        }
      })),
      { seed: SEED, numRuns: runs(1000) },
    );
    await expectStillServing();
  }, timeout(1000));
});
