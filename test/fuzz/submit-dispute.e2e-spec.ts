/**
 * Fuzzing POST /oracle/markets/dispute/submit: JSON bodies × API keys, then raw bodies, content
 * types, charsets and codings (see test/support/fuzz-suite.ts).
 */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { parseRfc3339 } from '../../src/common/rfc3339';
import { brokenJsonText, Entries, headerValue, junkJson, type JsonTree, LEGAL_HEADER_VALUE, NUMBER_TOKENS, plausibleText, RawJson, toJsonText } from '../support/fuzz-arbitraries';
import type { RowChange } from '../support/fuzz-db';
import { type Envelope, PropertyFailure } from '../support/fuzz-envelope';
import type { RawRequest } from '../support/fuzz-http';
import { DISPUTE_TEXT_FIELDS, isPlainObject, parsedBody, submitBodyModel } from '../support/fuzz-models';
import { BODY_LIMIT, decoded, extraKey, fuzzSuite, MASTER, runs, SEED, SUBMIT, submittedAt, timeout } from '../support/fuzz-suite';

describe('fuzzing POST /oracle/markets/dispute/submit', () => {
  const suite = fuzzSuite();
  const { send, judge, fuzzCase, expectChanges, rowsOf, expectEqual, expectStillServing, markets, hasDispute } = suite;

  /** The x-api-key header as sent (undefined: not sent), from valid to hopeless. */
  const apiKeyHeader = () =>
    fc.oneof(
      { arbitrary: fc.constant(suite.acmeKey), weight: 6 },
      {
        arbitrary: fc.constantFrom(
          undefined,
          suite.globexKey,
          suite.revokedPartnerKey,
          ` \t${suite.acmeKey} `,
          `${suite.acmeKey}\u00a0`,
          suite.acmeKey.toUpperCase(),
          suite.acmeKey.slice(0, -1),
          `${suite.acmeKey}x`,
          `${suite.acmeKey}, ${suite.acmeKey}`,
          suite.adminKey,
          MASTER,
          '',
          ' ',
          '\u00a0\t',
        ),
        weight: 3,
      },
      { arbitrary: headerValue, weight: 2 },
      // Unicode, as its UTF-8 bytes on the wire (legal obs-text): the server reads them as latin1.
      {
        arbitrary: fc
          .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
          .map((text) => Buffer.from(text, 'utf8').toString('latin1'))
          .filter((text) => LEGAL_HEADER_VALUE.test(text)),
        weight: 1,
      },
    );

  /** 4010 / 4011 / the partner's source, as the guard decides. */
  function partnerFor(header: string | undefined): number | string {
    const key = (header ?? '').trim();
    if (!key) return 4010;
    if (key === suite.acmeKey) return 'acme';
    if (key === suite.globexKey) return 'globex';
    return 4011;
  }

  /** The codes submit_dispute may answer once the key is known, for the body the app parsed. */
  function submitModel(partner: number | string, parsed: ReturnType<typeof parsedBody>): number {
    if (typeof partner === 'number') return partner;
    if (!parsed.ok || !isPlainObject(parsed.value)) return 4001;
    if (submitBodyModel(parsed.value) === 'invalid') return 4000;
    const raw = parsed.value.market_id;
    const marketId = String(typeof raw === 'string' ? Number(raw) : raw);
    const market = suite.state.tables.markets.get(marketId);
    if (!market) return 4040;
    if (market.source !== partner) return 4030;
    if (hasDispute(marketId)) return 4091;
    if (market.status !== 'resolved') return 4090;
    return 0;
  }

  /** A code-0 submission wrote exactly one open dispute, as sent, and moved its market. */
  async function expectDisputeFiled(envelope: Envelope, changes: RowChange[], body: Record<string, unknown>, sentAt: number) {
    expectChanges(changes, { 'disputes.added': 1, 'markets.changed': 1 });
    const [dispute] = rowsOf(changes, 'disputes', 'added');
    const [market] = rowsOf(changes, 'markets', 'changed');
    const marketId = String(Number(body.market_id));
    expectEqual(envelope.data, { dispute_id: Number(dispute.id) }, 'response data');
    expectEqual([String(market.id), market.status], [marketId, 'disputed'], 'market');
    expectEqual(
      [String(dispute.market_id), dispute.status, dispute.decision_type],
      [marketId, 'open', null],
      'dispute row',
    );
    for (const field of Object.keys(DISPUTE_TEXT_FIELDS)) {
      expectEqual(dispute[field], (body[field] as string).trim(), `stored ${field}`);
    }
    const [{ ms }] = await suite.db.query<{ ms: number }>('SELECT (extract(epoch FROM submitted_at) * 1000)::float8 AS ms FROM disputes WHERE id = $1', [
      dispute.id,
    ]);
    const given = parseRfc3339(body.submitted_at);
    if (given ? ms !== given.getTime() : ms < sentAt - 1000 || ms > Date.now() + 1000) {
      throw new PropertyFailure(`submitted_at stored as ${new Date(ms).toISOString()} for ${JSON.stringify(body.submitted_at)}`);
    }
  }

  const marketIdValue = () => {
    const ids = markets().map((row) => Number(row.id));
    return fc.oneof(
      { arbitrary: fc.constantFrom(...ids), weight: 6 },
      { arbitrary: fc.constantFrom(...ids).map((id) => fc.constantFrom(String(id), `000${id}`, ` ${id}`, `${id}.0`, `+${id}`)).chain((a) => a), weight: 2 },
      { arbitrary: fc.constantFrom(...ids).map((id) => new RawJson(`${id}.0`)), weight: 1 },
      { arbitrary: fc.constantFrom(...NUMBER_TOKENS).map((token) => new RawJson(token)), weight: 2 },
      { arbitrary: fc.constantFrom('0', '00', '-1', '1e3', '0x1', '١', '１', '9'.repeat(16), '9'.repeat(20), '9'.repeat(21), '9007199254740991', '9223372036854775807'), weight: 2 },
      { arbitrary: fc.integer({ min: 1_000_000, max: Number.MAX_SAFE_INTEGER }), weight: 1 },
      { arbitrary: junkJson, weight: 2 },
    );
  };

  /** A JSON object text: each field valid, hostile or absent; maybe extra or duplicated members. */
  const disputeBody = () => {
    const member = (name: string, value: fc.Arbitrary<JsonTree>) =>
      fc.option(value.map((v): [string, JsonTree] => [name, v]), { freq: 12, nil: undefined });
    const text = (max: number) => fc.oneof({ arbitrary: plausibleText(max), weight: 8 }, { arbitrary: junkJson, weight: 2 });
    return fc
      .tuple(
        member('market_id', marketIdValue()),
        member('submitter_id', text(128)),
        member('submitter_name', text(200)),
        member('submitter_selection', text(200)),
        member('reason_text', text(4000)),
        fc.option(submittedAt.map((v): [string, JsonTree] => ['submitted_at', v]), { freq: 3, nil: undefined }),
        fc.oneof({ arbitrary: fc.constant([]), weight: 8 }, { arbitrary: fc.array(fc.tuple(extraKey, junkJson), { minLength: 1, maxLength: 2 }), weight: 1 }),
      )
      .chain(([a, b, c, d, e, f, extra]) => {
        const entries = [a, b, c, d, e, f].filter((entry): entry is [string, JsonTree] => entry !== undefined).concat(extra);
        return fc.shuffledSubarray(entries, { minLength: entries.length, maxLength: entries.length });
      })
      .map((entries) => toJsonText(new Entries(entries)));
  };

  const submitBodyText = () =>
    fc.oneof(
      { arbitrary: disputeBody(), weight: 10 },
      { arbitrary: junkJson.map(toJsonText), weight: 2 },
      { arbitrary: brokenJsonText, weight: 1 },
    );

  it('POST /oracle/markets/dispute/submit: JSON bodies × API keys, the exact code, exact writes on success', async () => {
    await fc.assert(
      fc.asyncProperty(apiKeyHeader(), submitBodyText(), fc.constantFrom('application/json', 'application/json; charset=utf-8'), fuzzCase(async (key, text, contentType) => {
        const headers: [string, string][] = [['Content-Type', contentType]];
        if (key !== undefined) headers.push(['X-Api-Key', key]);
        const parsed = parsedBody(decoded(text));
        const partner = partnerFor(key);
        const code = typeof partner === 'number' ? partner : Buffer.byteLength(text) > BODY_LIMIT ? 4130 : submitModel(partner, parsed);
        const sentAt = Date.now();
        const response = await send({ method: 'POST', target: SUBMIT, headers, body: text });
        const echoes = parsed.ok && isPlainObject(parsed.value) ? Object.keys(parsed.value) : [];
        const { envelope, changes } = await judge('submit', response, [code], echoes);
        if (envelope.code === 0) await expectDisputeFiled(envelope, changes, (parsed as { value: Record<string, unknown> }).value, sentAt);
      })),
      { seed: SEED + 1, numRuns: runs(900) },
    );
    await expectStillServing();
  }, timeout(900));

  // Content types, charsets, content codings, chunked bodies, raw bytes.
  // 'bad': refused before the body is read; 'other': a utf-* charset body-parser reads but that
  // is not UTF-8, refused (4000) once read.
  const CONTENT_TYPES: [string | undefined, 'ok' | 'bad' | 'other' | 'unsure'][] = [
    [undefined, 'ok'],
    ['application/json', 'ok'],
    ['application/json;charset=UTF-8', 'ok'],
    ['text/plain', 'ok'],
    ['application/x-www-form-urlencoded', 'ok'],
    ['multipart/form-data; boundary=boundary', 'ok'],
    ['application/xml', 'ok'],
    ['application/octet-stream', 'ok'],
    ['*/*', 'ok'],
    ['', 'ok'],
    ['json', 'ok'],
    ['application/json; charset', 'ok'],
    ['application/json; charset=""', 'ok'],
    ['application/json; charset=utf8', 'bad'],
    ['application/json; charset=latin1', 'bad'],
    ['application/json; charset=iso-8859-1', 'bad'],
    ['text/plain; charset=us-ascii', 'bad'],
    ['application/json; charset=utf-99', 'bad'],
    ['application/json; charset=utf-16', 'other'],
    ['application/json; charset=utf-16be', 'other'],
    ['application/json; charset=utf-32le', 'other'],
    ['application/json; charset=utf-7', 'other'],
    ['application/json; charset=utf--8', 'other'],
    ['application/json; charset=utf-8; charset=latin1', 'unsure'],
  ];
  const CODINGS: [string | undefined, 'identity' | 'gzip' | 'deflate' | 'br' | 'unsupported'][] = [
    [undefined, 'identity'],
    ['identity', 'identity'],
    ['IDENTITY', 'identity'],
    ['gzip', 'gzip'],
    ['GZip', 'gzip'],
    ['deflate', 'deflate'],
    ['br', 'br'],
    ['compress', 'unsupported'],
    ['x-gzip', 'unsupported'],
    ['gzip, identity', 'unsupported'],
    ['bogus', 'unsupported'],
  ];

  function encodeBody(bytes: Buffer, coding: string, compress: boolean): Buffer {
    if (!compress) return bytes;
    if (coding === 'gzip') return gzipSync(bytes);
    if (coding === 'deflate') return deflateSync(bytes);
    if (coding === 'br') return brotliCompressSync(bytes);
    return bytes;
  }

  const chunked = (bytes: Buffer, size: number) => {
    const parts: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += size) {
      const chunk = bytes.subarray(at, at + size);
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from('0\r\n\r\n'));
    return Buffer.concat(parts);
  };

  it('POST /oracle/markets/dispute/submit: raw bodies, content types, charsets and codings', async () => {
    const bodyBytes = fc.oneof(
      { arbitrary: submitBodyText().map((text) => Buffer.from(text, 'utf8')), weight: 5 },
      { arbitrary: brokenJsonText.map((text) => Buffer.from(text, 'utf8')), weight: 2 },
      { arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)), weight: 2 },
      { arbitrary: fc.constantFrom(Buffer.alloc(0), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('\ufeff{"market_id":1}'), Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00])), weight: 1 },
      { arbitrary: fc.constantFrom(BODY_LIMIT, BODY_LIMIT + 1, 3 * BODY_LIMIT).map((size) => Buffer.from(`"${'x'.repeat(size - 2)}"`)), weight: 1 },
    );
    const contentType = fc.oneof(
      { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 4 },
      { arbitrary: headerValue.filter((value) => !/[;=]/.test(value)).map((value): [string, 'ok'] => [value, 'ok']), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ arbitrary: fc.constant(suite.acmeKey), weight: 5 }, apiKeyHeader()),
        contentType,
        fc.constantFrom(...CODINGS),
        fc.boolean(),
        fc.option(bodyBytes, { freq: 8, nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 4096 }), { freq: 4, nil: undefined }),
        fuzzCase(async (key, [type, charset], [coding, codingKind], compress, body, chunkSize) => {
          const headers: [string, string][] = [];
          if (key !== undefined) headers.push(['X-Api-Key', key]);
          if (type !== undefined) headers.push(['Content-Type', type]);
          if (coding !== undefined) headers.push(['Content-Encoding', coding]);
          const wire = body === undefined ? undefined : encodeBody(body, codingKind, compress);
          const request: RawRequest = { method: 'POST', target: SUBMIT, headers, body: wire };
          if (wire !== undefined && chunkSize !== undefined) {
            headers.push(['Transfer-Encoding', 'chunked']);
            Object.assign(request, { body: chunked(wire, chunkSize), contentLength: false });
          }

          const partner = partnerFor(key);
          let codes: number[];
          let parsed: ReturnType<typeof parsedBody> | undefined;
          if (typeof partner === 'number') codes = [partner];
          else if (body === undefined) codes = [4001]; // no body at all: no JSON object
          else if (charset === 'bad') codes = [4000];
          else if (codingKind === 'unsupported') codes = [4000];
          else if (codingKind !== 'identity' && !compress) codes = wire!.length === 0 || codingKind === 'br' ? [4000, 4001] : [4001];
          else if (body.length > BODY_LIMIT) codes = [4130];
          else if (charset === 'other') codes = [4000];
          else {
            parsed = parsedBody(decoded(body));
            codes = [submitModel(partner, parsed)];
            // two charsets: one of them is read
            if (charset === 'unsure') codes.push(4000, 4001);
          }
          const sentAt = Date.now();
          const response = await send(request);
          const echoes = parsed?.ok && isPlainObject(parsed.value) ? Object.keys(parsed.value) : [];
          const { envelope, changes } = await judge('submit-raw', response, codes, echoes);
          if (envelope.code === 0) await expectDisputeFiled(envelope, changes, (parsed as { value: Record<string, unknown> }).value, sentAt);
        }),
      ),
      { seed: SEED + 2, numRuns: runs(500) },
    );
    await expectStillServing();
  }, timeout(500));
});
