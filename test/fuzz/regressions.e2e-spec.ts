/** Deterministic regressions for what the fuzzer found, over the suites' harness (test/support/fuzz-suite.ts). */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { CATALOGUE_MSG } from '../support/fuzz-envelope';
import type { RawResponse } from '../support/fuzz-http';
import { fuzzSuite, MASTER, SUBMIT, UUID } from '../support/fuzz-suite';
import { fixturesOf } from '../support/test-app';

describe('regressions found by the fuzzer', () => {
  const suite = fuzzSuite();
  const { send, judge, changesSinceLastLook, expectChanges } = suite;

  // Their own partner and markets, apart from the fixtures the properties use.
  let partnerKey: string;
  beforeAll(async () => {
    partnerKey = (await fixturesOf(suite.t).partner('regressions')).apiKey;
    await changesSinceLastLook();
  });
  let sequence = 0;
  /** A new market written straight to the table (its rows are not a request's doing). */
  async function freshMarket(status: 'resolved' | 'monitoring' = 'resolved'): Promise<number> {
    const { id } = await fixturesOf(suite.t).market('regressions', { slug: `regression-${++sequence}`, status });
    await changesSinceLastLook();
    return id;
  }
  const dispute = (marketId: number) => ({
    market_id: marketId,
    submitter_id: 'u-1',
    submitter_name: 'Ann',
    submitter_selection: 'NO',
    reason_text: 'The source was corrected.',
  });
  const submitText = (text: string | Buffer, headers: [string, string][] = []) =>
    send({ method: 'POST', target: SUBMIT, headers: [['X-Api-Key', partnerKey], ['Content-Type', 'application/json'], ...headers], body: text });
  const asMaster = (method: string, target: string, body?: unknown, headers: [string, string][] = []) =>
    send({
      method,
      target,
      headers: [['Authorization', `Bearer ${MASTER}`], ...(body === undefined ? [] : [['Content-Type', 'application/json'] as [string, string]]), ...headers],
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  const rejected = async (response: RawResponse, code: number, detail: string, echoes: string[] = []) => {
    const { envelope } = await judge('regressions', response, [code], echoes);
    expect(envelope).toEqual({ code, msg: CATALOGUE_MSG.get(code), detail });
  };
  const cursor = (id: string) => BigInt(id).toString(36);

  it('a body field nested thousands of levels deep is 4000 (it overflowed the stack: 5000)', async () => {
    const market = await freshMarket();
    const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const body = (depth: number) => JSON.stringify(dispute(market)).replace(/}$/, `,"submitted_at":${deep(depth)}}`);
    await rejected(await submitText(body(3000)), 4000, 'submitted_at is nested too deeply');
    const monitoring = await freshMarket('monitoring');
    const resolve = `{"verdict":"YES","confidence":"HIGH","reasoning":"r","proofs":${deep(5000)}}`;
    await rejected(await asMaster('POST', `/admin/markets/${monitoring}/resolve`, resolve), 4000, 'proofs is nested too deeply');
    // 16 levels are still read; submitted_at is then simply not a timestamp: the server's time.
    const { envelope, changes } = await judge('regressions', await submitText(body(16)), [0]);
    expectChanges(changes, { 'disputes.added': 1, 'markets.changed': 1 });
    expect(envelope.data).toEqual({ dispute_id: expect.any(Number) });
  });

  it('a cursor past the bigint range is 4000 (PostgreSQL refused it: 5000)', async () => {
    for (const path of ['/admin/disputes', '/admin/audit']) {
      for (const id of ['9223372036854775808', String(36n ** 12n)]) {
        await rejected(await asMaster('GET', `${path}?cursor=${cursor(id)}`), 4000, 'cursor is not a cursor this service issued');
      }
    }
    // The largest cursor of the documented form names an id far past any, and is a page.
    const { envelope } = await judge('regressions', await asMaster('GET', '/admin/disputes?cursor=zzzzzzzzzzzz'), [0]);
    expect(envelope.data).toEqual({ disputes: [], next_cursor: null });
  });

  it('a body that does not decompress as its Content-Encoding says is 4001 (zlib errors were 5000)', async () => {
    const market = await freshMarket();
    const json = JSON.stringify(dispute(market));
    for (const coding of ['gzip', 'deflate', 'br']) {
      await rejected(await submitText(json, [['Content-Encoding', coding]]), 4001, 'the body could not be decoded');
    }
    await rejected(await submitText(gzipSync(json).subarray(0, 20), [['Content-Encoding', 'gzip']]), 4001, 'the body could not be decoded');
    const { changes } = await judge('regressions', await submitText(gzipSync(json), [['Content-Encoding', 'gzip']]), [0]);
    expectChanges(changes, { 'disputes.added': 1, 'markets.changed': 1 });
  });

  it('text with a NUL character is 4000 or "not found" (PostgreSQL text cannot hold it: 5000)', async () => {
    const market = await freshMarket();
    const detail = (field: string) => `${field} must not contain NUL characters or unpaired surrogates`;
    await rejected(await submitText(JSON.stringify({ ...dispute(market), reason_text: 'a\u0000b' })), 4000, detail('reason_text'));
    await rejected(await send({ method: 'GET', target: '/oracle/markets/public?slug=btc-above-100k-2026%00&source=acme' }), 4000, 'slug must not contain NUL characters');
    await rejected(await send({ method: 'GET', target: '/oracle/markets/public?slug=a&source=acme%00' }), 4000, 'source must not contain NUL characters');
    await rejected(await asMaster('POST', '/admin/reviewers', { name: 'Rita\u0000', role: 'reviewer' }), 4000, detail('name'));
    await rejected(await asMaster('POST', '/admin/markets', { source: 'regressions', slug: 'a\u0000' }), 4000, detail('slug'));
    await rejected(await asMaster('POST', '/admin/partners/regressions%00/keys'), 4042, 'partner not found');
    await rejected(await asMaster('DELETE', '/admin/partners/%00/keys/1'), 4042, 'partner not found');
    // the market was not touched by the rejected dispute
    expect(suite.state.tables.markets.get(String(market))?.status).toBe('resolved');
  });

  it('an unpaired UTF-16 surrogate is 4000 (jsonb refused it: 5000; text stored U+FFFD instead)', async () => {
    const detail = (field: string) => `${field} must not contain NUL characters or unpaired surrogates`;
    await rejected(await asMaster('POST', '/admin/reviewers', '{"name":"x\\ud800y","role":"reviewer"}'), 4000, detail('name'));
    await rejected(await asMaster('POST', '/admin/partners', '{"source":"surrogates","name":"\\udfff"}'), 4000, detail('name'));
    const market = await freshMarket();
    const body = JSON.stringify({ ...dispute(market), submitter_name: 'An\udc00n' });
    expect(body).toContain('\\udc00');
    await rejected(await submitText(body), 4000, detail('submitter_name'));
    // a surrogate pair is ordinary text
    const { envelope, changes } = await judge('regressions', await asMaster('POST', '/admin/reviewers', { name: 'Rita 😀', role: 'reviewer' }), [0]);
    expect(envelope.data).toMatchObject({ name: 'Rita 😀' });
    expectChanges(changes, { 'reviewers.added': 1, 'audit_events.added': 1 });
  });

  it('bytes that are not UTF-8 are 4001, and other utf-* charsets 4000, whatever JSON they spell (they were stored as U+FFFD)', async () => {
    const market = await freshMarket();
    const [before, after] = JSON.stringify({ ...dispute(market), submitter_selection: '@' }).split('@');
    for (const bytes of [[0xff, 0xfe], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const body = Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
      await rejected(await submitText(body), 4001, 'the body is not valid UTF-8');
    }
    // Charsets body-parser would decode, U+FFFD for what does not: UTF-16 (valid text here), labels iconv-lite reads as UTF-8.
    const utf16 = Buffer.from(`\ufeff${JSON.stringify(dispute(market))}`, 'utf16le');
    for (const [charset, body] of [['utf-16', utf16], ['utf-16le', utf16], ['utf--8', Buffer.from(`${before}\xff${after}`, 'latin1')], ['utf-8.', Buffer.from(JSON.stringify(dispute(market)))]] as const) {
      const headers: [string, string][] = [['X-Api-Key', partnerKey], ['Content-Type', `application/json; charset=${charset}`]];
      await rejected(await send({ method: 'POST', target: SUBMIT, headers, body }), 4000, 'unsupported body encoding or charset');
    }
    expect(suite.state.tables.markets.get(String(market))?.status).toBe('resolved');
    // text that is UTF-8, beyond ASCII: filed
    const { changes } = await judge('regressions', await submitText(Buffer.from(JSON.stringify({ ...dispute(market), submitter_name: 'Zoë 😀' }))), [0]);
    expectChanges(changes, { 'disputes.added': 1, 'markets.changed': 1 });
  });

  it("members named like Object.prototype's are unknown fields like any other (they were silently dropped)", async () => {
    const market = await freshMarket();
    for (const key of ['toString', 'valueOf', 'hasOwnProperty', 'constructor', '__proto__', 'prototype']) {
      const text = JSON.stringify(dispute(market)).replace(/^{/, `{${JSON.stringify(key)}:1,`);
      await rejected(await submitText(text), 4000, `${key} is not a known field`, [key]);
    }
    await rejected(
      await submitText(`{"toString":1,"market_id":"x"}`),
      4000,
      'toString is not a known field; market_id must be a positive integer no greater than 9007199254740991; submitter_id is required; submitter_name is required; submitter_selection is required; reason_text is required',
      ['toString'],
    );
    const monitoring = await freshMarket('monitoring');
    const resolve = { verdict: 'YES', confidence: 'HIGH', reasoning: 'r', proofs: [{ chain: 'base', tx_hash: '0x1', valueOf: 1 }] };
    await rejected(await asMaster('POST', `/admin/markets/${monitoring}/resolve`, resolve), 4000, 'proofs.0.valueOf is not a known field', ['valueOf']);
    await rejected(await asMaster('GET', '/admin/audit?toString=1'), 4000, 'toString is not a known field', ['toString']);
    await rejected(await asMaster('GET', '/admin/disputes?__proto__=x'), 4000, '__proto__ is not a known field', ['__proto__']);
    // inside submitted_at (any value is allowed there), such members are nobody's business
    const { changes } = await judge('regressions', await submitText(JSON.stringify({ ...dispute(market), submitted_at: { toString: 1 } })), [0]);
    expectChanges(changes, { 'disputes.added': 1, 'markets.changed': 1 });
  });

  it('a path with malformed percent-encoding gets 4000 with an x-request-id (it had none)', async () => {
    for (const target of ['/admin/disputes/%E0', '/admin/partners/%/keys', '/oracle/markets/%zz', '/nope/%']) {
      const response = await asMaster('GET', target);
      await rejected(response, 4000, 'invalid request');
      expect(response.headers['x-request-id']).toMatch(UUID);
      const traced = await asMaster('GET', target, undefined, [['X-Request-Id', 'trace-42']]);
      expect(traced.headers['x-request-id']).toBe('trace-42');
    }
  });
});
