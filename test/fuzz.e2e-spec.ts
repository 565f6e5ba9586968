/**
 * Property-based fuzzing of the partner API and the /admin back office (fast-check).
 *
 * Every generated request must get HTTP 200 with the envelope, a catalogued code and msg, never
 * 5000 and never an internal detail; the code the contract prescribes (fuzz-models.ts); and a
 * rejected request must leave every mutable table exactly as it was, while each success must
 * have written exactly its rows. After each property a known-good request must still work.
 *
 *   FUZZ_SEED=<int>   the seed (default below, fixed for reproducibility; fast-check prints the
 *                     seed and path of any failure, replay with FUZZ_SEED and fc's `path`)
 *   FUZZ_RUNS=<x>     scales the number of runs of every property (default 1: 4,550 generated cases)
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { skeleton, skeletonIgnoringCase } from '../src/common/confusable-skeleton';
import { parseRfc3339 } from '../src/common/rfc3339';
import { normalizeSlug } from '../src/markets/market-identity';
import {
  brokenJsonText,
  Entries,
  headerValue,
  junkJson,
  junkString,
  type JsonTree,
  LEGAL_HEADER_VALUE,
  NUMBER_TOKENS,
  percentEncode,
  plausibleText,
  RawJson,
  toJsonText,
  wireText,
} from './support/fuzz-arbitraries';
import { DatabaseWatcher, describeChanges, diffSnapshots, type Row, type RowChange, type Snapshot, type Table } from './support/fuzz-db';
import { CATALOGUE_MSG, checkEnvelope, type Envelope, PropertyFailure } from './support/fuzz-envelope';
import { type RawRequest, rawRequest, type RawResponse } from './support/fuzz-http';
import {
  adminBodyModels,
  DISPUTE_TEXT_FIELDS,
  isPlainObject,
  containsIgnoringCase,
  type PageFilter,
  pageQueryModel,
  parsedBody,
  publicMarketModel,
  serverQuery,
  submitBodyModel,
  validPathId,
  canonicalPathId,
  type Verdict,
} from './support/fuzz-models';
import { fixturesOf, NO_RATE_LIMITS, startTestApp, type TestApp } from './support/test-app';

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261121;
const SCALE = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 1;
const runs = (base: number) => Math.max(1, Math.round(base * SCALE));
const timeout = (base: number) => Math.max(60_000, Math.round(base * SCALE * 40));

const MASTER = 'fuzz-master-key-0123456789abcdefghijkl';
const SUBMIT = '/oracle/markets/dispute/submit';
const BODY_LIMIT = 64 * 1024;
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The text body-parser hands to JSON.parse: UTF-8 decoded, one leading BOM dropped; undefined if the bytes are not UTF-8. */
const decoded = (body: string | Buffer): string | undefined => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  } catch {
    return undefined;
  }
};

describe('fuzzing the partner and admin routes', () => {
  let t: TestApp;
  let port: number;
  let db: DatabaseWatcher;
  let state: Snapshot;
  const tally = new Map<string, Map<number, number>>();

  // Credentials and fixtures, created once.
  let acmeKey: string;
  let globexKey: string;
  let revokedPartnerKey: string;
  let adminKey: string;
  let reviewerKey: string;
  let revokedAdminKey: string;
  const credentialHolders = new Set<string>(); // reviewer ids the fuzzer must not revoke
  const publicMarkets: { id: number; source: string; slug: string }[] = [];

  const send = (request: RawRequest): Promise<RawResponse> => rawRequest(port, request);

  /** The rows that changed since the last look (one cheap digest query when none did). */
  async function changesSinceLastLook(): Promise<RowChange[]> {
    if ((await db.fingerprint()) === state.fingerprint) return [];
    const next = await db.snapshot();
    const changes = diffSnapshots(state, next);
    state = next;
    return changes;
  }

  /**
   * The checks every response gets: the envelope, one of the `allowed` codes, and no write
   * at all unless it succeeded. Returns the envelope and what changed in the database.
   */
  async function judge(
    property: string,
    response: RawResponse,
    allowed: Iterable<number>,
    echoes: string[] = [],
  ): Promise<{ envelope: Envelope; changes: RowChange[] }> {
    // The database first, so the next case starts from the right state whatever happens here.
    const changes = await changesSinceLastLook();
    let envelope: Envelope;
    try {
      envelope = checkEnvelope(response, new Set(allowed), echoes);
    } catch (error) {
      if (changes.length > 0) (error as Error).message += `\n  and the database changed:\n${describeChanges(changes)}`;
      throw error;
    }
    if (envelope.code !== 0 && changes.length > 0) {
      throw new PropertyFailure(`a rejected request (code ${envelope.code}) changed the database:\n${describeChanges(changes)}`);
    }
    const codes = tally.get(property) ?? new Map<number, number>();
    codes.set(envelope.code, (codes.get(envelope.code) ?? 0) + 1);
    tally.set(property, codes);
    return { envelope, changes };
  }

  /**
   * Wraps a property's predicate. A change found before a case starts is a write that happened
   * after the previous case's answer had been judged: a failure, unless that case itself failed
   * before its answer could be judged (fast-check then shrinks, and the state is re-read here).
   */
  let previousCaseJudged = true;
  const fuzzCase =
    <A extends unknown[]>(predicate: (...args: A) => Promise<void>) =>
    async (...args: A): Promise<void> => {
      const stray = await changesSinceLastLook();
      if (stray.length > 0 && previousCaseJudged) {
        throw new PropertyFailure(`the database changed after the previous answer had been judged:\n${describeChanges(stray)}`);
      }
      previousCaseJudged = false;
      await predicate(...args);
      previousCaseJudged = true;
    };

  /** The changes must be exactly these: per table and kind, how many rows. */
  function expectChanges(changes: RowChange[], expected: Partial<Record<`${Table}.${RowChange['kind']}`, number>>): void {
    const actual: Record<string, number> = {};
    for (const change of changes) actual[`${change.table}.${change.kind}`] = (actual[`${change.table}.${change.kind}`] ?? 0) + 1;
    const wanted = Object.fromEntries(Object.entries(expected).filter(([, count]) => count));
    if (JSON.stringify(Object.entries(actual).sort()) !== JSON.stringify(Object.entries(wanted).sort())) {
      throw new PropertyFailure(`a success wrote ${JSON.stringify(actual)}, expected ${JSON.stringify(wanted)}:\n${describeChanges(changes)}`);
    }
  }

  const rowsOf = (changes: RowChange[], table: Table, kind: RowChange['kind']): Row[] =>
    changes.filter((change) => change.table === table && change.kind === kind).map((change) => change.after!);

  function expectEqual(actual: unknown, expected: unknown, what: string): void {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      throw new PropertyFailure(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
    }
  }

  function expectAudit(changes: RowChange[], action: string, actor: string): void {
    const [event] = rowsOf(changes, 'audit_events', 'added');
    expectEqual([event?.action, event?.actor], [action, actor], 'audit event');
  }

  /** A known-good partner read and admin read still work: the server is up and sane. */
  async function expectStillServing(): Promise<void> {
    const market = publicMarkets[0];
    const read = await send({ method: 'GET', target: `/oracle/markets/public?slug=${percentEncode(market.slug)}&source=${market.source}` });
    const { envelope } = await judge('health', read, [0]);
    expect(envelope).toMatchObject({ code: 0, data: { markets: [{ id: market.id, slug: market.slug, source: market.source }] } });
    const admin = await send({ method: 'GET', target: '/admin/disputes?limit=1', headers: [['Authorization', `Bearer ${MASTER}`]] });
    expect((await judge('health', admin, [0])).envelope.code).toBe(0);
    const live = await send({ method: 'GET', target: '/health/live' });
    expect(live.status).toBe(200);
  }

  const markets = () => [...state.tables.markets.values()];
  const disputes = () => [...state.tables.disputes.values()];
  const partnerSources = () => [...state.tables.partners.values()].map((row) => row.source as string);
  const hasDispute = (marketId: string) => disputes().some((row) => String(row.market_id) === marketId);

  async function api(method: 'get' | 'post' | 'delete', path: string, body?: object, key = MASTER) {
    const call = t.http[method](path).set('authorization', `Bearer ${key}`);
    const response = await (body ? call.send(body) : call);
    expect(response.body.code).toBe(0);
    return response.body.data;
  }

  beforeAll(async () => {
    t = await startTestApp({
      ADMIN_MASTER_KEY: MASTER,
      ...NO_RATE_LIMITS,
    });
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;

    const fixtures = fixturesOf(t);
    acmeKey = (await fixtures.partner('acme')).apiKey;
    globexKey = (await fixtures.partner('globex')).apiKey;
    await fixtures.partner('Zeta.Corp_9');
    const spare = await api('post', '/admin/partners/acme/keys');
    revokedPartnerKey = spare.api_key;
    await api('delete', `/admin/partners/acme/keys/${spare.key_id}`);

    for (const [source, slug] of [
      ['acme', 'btc-above-100k-2026'],
      ['acme', 'nba/finals/2026'],
      ['acme', 'ünïcödé-✓'],
      ['acme', 'Two Words'],
      ['acme', 'x'.repeat(256)],
      ['globex', 'btc-above-100k-2026'],
      ['globex', 'a'],
      ['Zeta.Corp_9', 'z'],
    ]) {
      publicMarkets.push({ ...(await fixtures.market(source, { slug })), source });
    }
    // Markets in every state for the dispute property; fresh resolved ones can be disputed once.
    for (let i = 0; i < 60; i++) await fixtures.market('acme');
    // (disputed and closed markets come from real disputes below: those states imply one)
    for (let i = 0; i < 6; i++) await fixtures.market('acme', { status: 'monitoring' });
    for (const status of ['resolved', 'resolved', 'monitoring'] as const) await fixtures.market('globex', { status });
    for (let i = 0; i < 6; i++) await fixtures.market('Zeta.Corp_9', { status: 'monitoring' });

    const admin = await api('post', '/admin/reviewers', { name: 'fuzz-admin', role: 'admin' });
    const reviewer = await api('post', '/admin/reviewers', { name: 'fuzz-reviewer', role: 'reviewer' });
    const revoked = await api('post', '/admin/reviewers', { name: 'fuzz-revoked', role: 'admin' });
    await api('delete', `/admin/reviewers/${revoked.id}`);
    [adminKey, reviewerKey, revokedAdminKey] = [admin.api_key, reviewer.api_key, revoked.api_key];
    for (const holder of [admin, reviewer]) credentialHolders.add(String(holder.id));
    for (let i = 0; i < 4; i++) await api('post', '/admin/reviewers', { name: `spare-${i}`, role: 'reviewer' });

    // Open and decided disputes for the decision route.
    const resolvedAcme = await t.dataSource.query(`SELECT id FROM markets WHERE source = 'acme' AND status = 'resolved' ORDER BY id DESC LIMIT 6`);
    for (const [index, { id }] of resolvedAcme.entries()) {
      const filed = await t.http.post(SUBMIT).set('x-api-key', acmeKey).send({
        market_id: Number(id),
        submitter_id: `u-${index}`,
        submitter_name: 'Setup',
        submitter_selection: 'NO',
        reason_text: 'Seeded for the fuzzer.',
      });
      expect(filed.body.code).toBe(0);
      if (index < 2) {
        await api('post', `/admin/disputes/${filed.body.data.dispute_id}/decision`, { type: 'keep', reason_text: 'Seeded.' });
      }
    }

    db = await DatabaseWatcher.connect(t.databaseUrl);
    state = await db.snapshot();
  });

  afterAll(async () => {
    const summary = [...tally].map(([property, codes]) => {
      const total = [...codes.values()].reduce((sum, count) => sum + count, 0);
      const byCode = [...codes].sort(([a], [b]) => a - b).map(([code, count]) => `${code}:${count}`);
      return `  ${property}: ${total} responses (${byCode.join(' ')})`;
    });
    // FUZZ_STATS=1: what the generated requests were answered, by property.
    if (process.env.FUZZ_STATS === '1') process.stdout.write(`fuzz seed ${SEED}, scale ${SCALE}\n${summary.join('\n')}\n`);
    await db?.close();
    await t?.close();
  });

  // ---------------------------------------------------------------------------------------
  // GET /oracle/markets/public
  // ---------------------------------------------------------------------------------------

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

  // ---------------------------------------------------------------------------------------
  // POST /oracle/markets/dispute/submit
  // ---------------------------------------------------------------------------------------

  /** The x-api-key header as sent (undefined: not sent), from valid to hopeless. */
  const apiKeyHeader = () =>
    fc.oneof(
      { arbitrary: fc.constant(acmeKey), weight: 6 },
      {
        arbitrary: fc.constantFrom(
          undefined,
          globexKey,
          revokedPartnerKey,
          ` \t${acmeKey} `,
          `${acmeKey}\u00a0`,
          acmeKey.toUpperCase(),
          acmeKey.slice(0, -1),
          `${acmeKey}x`,
          `${acmeKey}, ${acmeKey}`,
          adminKey,
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
    if (key === acmeKey) return 'acme';
    if (key === globexKey) return 'globex';
    return 4011;
  }

  /** The codes submit_dispute may answer once the key is known, for the body the app parsed. */
  function submitModel(partner: number | string, parsed: ReturnType<typeof parsedBody>): number {
    if (typeof partner === 'number') return partner;
    if (!parsed.ok || !isPlainObject(parsed.value)) return 4001;
    if (submitBodyModel(parsed.value) === 'invalid') return 4000;
    const raw = parsed.value.market_id;
    const marketId = String(typeof raw === 'string' ? Number(raw) : raw);
    const market = state.tables.markets.get(marketId);
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
    const [{ ms }] = await db.query<{ ms: number }>('SELECT (extract(epoch FROM submitted_at) * 1000)::float8 AS ms FROM disputes WHERE id = $1', [
      dispute.id,
    ]);
    const given = parseRfc3339(body.submitted_at);
    if (given ? ms !== given.getTime() : ms < sentAt - 1000 || ms > Date.now() + 1000) {
      throw new PropertyFailure(`submitted_at stored as ${new Date(ms).toISOString()} for ${JSON.stringify(body.submitted_at)}`);
    }
  }

  const submittedAt = fc.oneof(
    fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString()),
    fc.constantFrom(
      '2026-11-02T09:30:00Z',
      '2026-11-02t09:30:00.123456789+05:45',
      '2026-11-02 09:30:00-00:00',
      '0001-01-01T00:00:00+01:00',
      '0001-01-01T00:30:00+23:59',
      '9999-12-31T23:59:60-23:59',
      '2016-12-31T23:59:60Z',
      '2024-02-29T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-11-02',
      '2026-11-02T25:00:00Z',
      'yesterday',
      '',
    ),
    junkJson,
  );

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

  const extraKey = fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'market_id', 'reason_text', 'MARKET_ID', 'market_id ', 'dispute_id', 'status', ''),
    junkString,
  );

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
        fc.oneof({ arbitrary: fc.constant(acmeKey), weight: 5 }, apiKeyHeader()),
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

  it('the HTTP client refuses header values that are not legal HTTP before anything is sent', async () => {
    const unicodeValue = fc.string({ unit: fc.oneof(fc.constantFrom('a', ' '), fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code))), minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(unicodeValue, fc.constantFrom('x-api-key', 'authorization'), fuzzCase(async (value, header) => {
        const path = header === 'x-api-key' ? SUBMIT : '/admin/disputes';
        let response;
        try {
          const call = header === 'x-api-key' ? t.http.post(path).send({}) : t.http.get(path);
          response = await call.set(header, value);
        } catch (error) {
          // Not HTTP: Node's client rejects it; the server never sees the request.
          expect(LEGAL_HEADER_VALUE.test(value)).toBe(false);
          expect((error as { code?: string }).code).toBe('ERR_INVALID_CHAR');
          return;
        }
        expect(LEGAL_HEADER_VALUE.test(value)).toBe(true);
        const expected = header === 'x-api-key' ? [value.trim() ? 4011 : 4010] : [4012];
        await judge('client-headers', { status: response.status, headers: response.headers as Record<string, string>, body: response.text }, expected);
      })),
      { seed: SEED + 3, numRuns: runs(150) },
    );
    await expectStillServing();
  }, timeout(150));

  // ---------------------------------------------------------------------------------------
  // /admin
  // ---------------------------------------------------------------------------------------

  type AdminRoute =
    | 'createReviewer'
    | 'listReviewers'
    | 'revokeReviewer'
    | 'createPartner'
    | 'listPartners'
    | 'listKeys'
    | 'issueKey'
    | 'revokeKey'
    | 'createMarket'
    | 'resolveMarket'
    | 'listDisputes'
    | 'getDispute'
    | 'decide'
    | 'listAudit';
  const ADMIN_ONLY = new Set<AdminRoute>(['createReviewer', 'listReviewers', 'revokeReviewer', 'createPartner', 'listPartners', 'listKeys', 'issueKey', 'revokeKey', 'createMarket', 'resolveMarket', 'listAudit']);
  /** The listings, and the filter each takes besides limit and cursor. */
  const LISTINGS: Partial<Record<AdminRoute, PageFilter | undefined>> = {
    listReviewers: undefined,
    listPartners: 'q',
    listKeys: undefined,
    listDisputes: 'status',
    listAudit: undefined,
  };
  const isListing = (route: AdminRoute) => Object.prototype.hasOwnProperty.call(LISTINGS, route);
  const ROUTE_BODY: Partial<Record<AdminRoute, keyof typeof adminBodyModels>> = {
    createReviewer: 'reviewer',
    createPartner: 'partner',
    createMarket: 'market',
    resolveMarket: 'resolve',
    decide: 'decision',
  };

  /** A path segment as sent: an existing row's id (picked when sent), or any wire text. */
  type Segment = { pick: number } | { wire: string };
  const idSegment: fc.Arbitrary<Segment> = fc.oneof(
    { arbitrary: fc.nat().map((pick) => ({ pick })), weight: 5 },
    { arbitrary: fc.integer({ min: 1_000_000, max: 2 ** 40 }).map((id) => ({ wire: String(id) })), weight: 1 },
    {
      arbitrary: fc
        .constantFrom('0', '-1', '1.5', '1e3', '01', '+1', '%201', '0x1f', '9007199254740991', '9007199254740992', '9999999999999999', '99999999999999999999', 'abc', '%00', '%2F', '%2e%2e', '..', '%EF%BC%91', 'null', '1%00', '1;2', '1,2', '(1)', '*', "1'")
        .map((wire) => ({ wire })),
      weight: 3,
    },
    { arbitrary: wireText(['/', '?']).filter((wire) => wire.length > 0).map((wire) => ({ wire })), weight: 2 },
  );
  const sourceSegment: fc.Arbitrary<Segment> = fc.oneof(
    { arbitrary: fc.nat().map((pick) => ({ pick })), weight: 5 },
    {
      arbitrary: fc
        .constantFrom('ACME', 'acme%20', '%20acme', 'acme%00', '%00', 'no-such-partner', 'Zeta.Corp_9', 'zeta.corp_9', '%2e', '..', 'a%2Fb', 'x'.repeat(300), '%E2%9C%93')
        .map((wire) => ({ wire })),
      weight: 3,
    },
    { arbitrary: wireText(['/', '?']).filter((wire) => wire.length > 0).map((wire) => ({ wire })), weight: 2 },
  );

  const tryDecode = (wire: string): string | undefined => {
    if (!wire.includes('%')) return wire;
    try {
      return decodeURIComponent(wire);
    } catch {
      return undefined;
    }
  };

  /** Existing rows a path id may name; reviewers exclude the fuzzer's own credentials. */
  function idsFor(route: AdminRoute, source?: string): string[] {
    const all = (table: Table) => [...state.tables[table].keys()];
    switch (route) {
      case 'revokeReviewer':
        return all('reviewers').filter((id) => !credentialHolders.has(id));
      case 'revokeKey': {
        // mostly the named partner's keys, sometimes another partner's
        const partner = [...state.tables.partners.values()].find((row) => row.source === source);
        const own = [...state.tables.api_keys.values()].filter((row) => String(row.partner_id) === String(partner?.id)).map((row) => String(row.id));
        return own.length > 0 ? [...own, ...own, all('api_keys')[0]] : all('api_keys');
      }
      case 'resolveMarket':
        return all('markets');
      default:
        return all('disputes');
    }
  }

  const resolveSegment = (segment: Segment, candidates: string[], encode = (text: string) => text) =>
    'wire' in segment ? segment.wire : encode(candidates[segment.pick % candidates.length]);

  // Bodies per DTO: each field plausible, hostile, or missing; sometimes an extra member.
  const member = (name: string, value: fc.Arbitrary<JsonTree>, freq = 12) =>
    fc.option(value.map((v): [string, JsonTree] => [name, v]), { freq, nil: undefined });
  const oneOfOrJunk = (values: string[]) =>
    fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 6 }, { arbitrary: fc.constantFrom(...values.map((v) => v.toUpperCase()), ` ${values[0]}`), weight: 1 }, { arbitrary: junkJson, weight: 1 });
  const textOrJunk = (max: number) => fc.oneof({ arbitrary: plausibleText(max), weight: 8 }, { arbitrary: junkJson, weight: 2 });
  const sourceText = () =>
    fc.oneof(
      { arbitrary: fc.constantFrom(...partnerSources(), ' acme ', 'no-such-partner'), weight: 3 },
      { arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/), weight: 3 },
      { arbitrary: textOrJunk(64), weight: 2 },
      { arbitrary: fc.constantFrom('-lead', '.x', 'a b', 'a/b', 'ü', 'x'.repeat(64), 'x'.repeat(65), 'acme\u0000'), weight: 1 },
    );
  const proof = fc.oneof(
    { arbitrary: fc.tuple(member('chain', oneOfOrJunk(['base', 'bsc'])), member('tx_hash', textOrJunk(200))), weight: 8 },
    { arbitrary: fc.tuple(fc.constant(['chain', 'base'] as [string, JsonTree]), fc.tuple(extraKey, junkJson)), weight: 1 },
  ).map((entries) => new Entries((entries as ([string, JsonTree] | undefined)[]).filter((entry): entry is [string, JsonTree] => entry !== undefined)) as JsonTree);
  const dtoEntries: Record<keyof typeof adminBodyModels, () => fc.Arbitrary<([string, JsonTree] | undefined)[]>> = {
    reviewer: () => fc.tuple(member('name', textOrJunk(200)), member('role', oneOfOrJunk(['admin', 'reviewer']))),
    partner: () => fc.tuple(member('source', sourceText()), member('name', textOrJunk(200))),
    market: () =>
      fc.tuple(
        member('source', sourceText()),
        member('slug', fc.oneof(textOrJunk(256), fc.constantFrom('/', '//a//', ' / ', 'btc-above-100k-2026', 'y'.repeat(256), `/${'y'.repeat(256)}/`))),
      ),
    resolve: () =>
      fc.tuple(
        member('verdict', textOrJunk(200)),
        member('confidence', oneOfOrJunk(['VERY_HIGH', 'HIGH', 'MEDIUM', 'LOW', 'VERY_LOW'])),
        member('reasoning', textOrJunk(10000)),
        member('proofs', fc.oneof({ arbitrary: fc.array(proof, { minLength: 0, maxLength: 22 }), weight: 8 }, { arbitrary: fc.array(junkJson, { maxLength: 3 }), weight: 1 }, { arbitrary: junkJson, weight: 1 })),
        member('resolved_at', submittedAt, 3),
      ),
    decision: () => fc.tuple(member('type', oneOfOrJunk(['keep', 'override'])), member('reason_text', textOrJunk(4000))),
  };
  const adminBody = (dto: keyof typeof adminBodyModels) =>
    fc
      .tuple(dtoEntries[dto](), fc.oneof({ arbitrary: fc.constant([]), weight: 8 }, { arbitrary: fc.array(fc.tuple(extraKey, junkJson), { minLength: 1, maxLength: 2 }), weight: 1 }))
      .map(([entries, extra]) => toJsonText(new Entries(entries.filter((entry): entry is [string, JsonTree] => entry !== undefined).concat(extra))));

  const pageQuery = (filter?: PageFilter) => {
    const cursors = () => {
      const ids = (['disputes', 'audit_events', 'reviewers', 'partners', 'api_keys'] as const).flatMap((table) => [...state.tables[table].keys()]);
      const encode = (id: bigint | string) => BigInt(id).toString(36);
      const queuePlaces = [...state.tables.disputes.values()].map((row) => BigInt(row.id as string) * 2n + (row.status === 'closed' ? 1n : 0n));
      return fc.oneof(
        fc.constantFrom(...ids).map(encode),
        fc.constantFrom(...queuePlaces).map(encode),
        fc.constantFrom('0', '00', 'z'.repeat(12), 'z'.repeat(13), '1'.repeat(13), 'Z', '-1', '%201', '1%20', '1%00', 'aWQ6MQ', ''),
        fc.bigInt({ min: 1n, max: 36n ** 13n }).map(encode),
        wireText(['&', '=']),
      );
    };
    const value = (name: string) => {
      switch (name) {
        case 'limit':
          return fc.oneof(fc.integer({ min: -5, max: 120 }).map(String), fc.constantFrom('', '01', '0100', '1.0', '1e1', '+5', '%205', '0x10', '99999', percentEncode('１'), 'NaN'), wireText(['&', '=']));
        case 'cursor':
          return cursors();
        case 'q': {
          const names = [...state.tables.partners.values()].flatMap((row) => [row.source as string, row.name as string]);
          const parts = names.flatMap((text) => [text, text.slice(1, 4), text.toUpperCase()]);
          const tricky = ['%', '_', '\\', '.', ' ', 'Inc', 'CORP_', '%_', 'x'.repeat(200), 'x'.repeat(201), 'é', 'É', 'ß', 'ǅ'];
          return fc.oneof(
            { arbitrary: fc.constantFrom(...parts, ...tricky).map(percentEncode), weight: 6 },
            { arbitrary: fc.constantFrom('', '%00', '%ED%A0%80'), weight: 1 },
            { arbitrary: wireText(['&', '=']), weight: 2 },
          );
        }
        default:
          return fc.oneof(fc.constantFrom('open', 'closed', 'OPEN', 'open%20', '', 'all', 'decided'), wireText(['&', '=']));
      }
    };
    const names = filter ? ['limit', 'cursor', filter] : ['limit', 'cursor'];
    const name = fc.oneof({ arbitrary: fc.constantFrom(...names), weight: 8 }, { arbitrary: fc.constantFrom('limit[]', 'offset', 'page', 'status', 'q', '__proto__', 'Limit', ''), weight: 1 }, { arbitrary: wireText(['&', '=']), weight: 1 });
    return fc
      .array(name.chain((n) => value(n).map((v) => `${n}=${v}`)), { maxLength: 4 })
      .map((params) => (params.length > 0 ? `?${params.join('&')}` : ''))
      .filter((query) => query.length < 6000); // Node itself answers 431 past 16 KiB of request head
  };

  interface AdminCall {
    route: AdminRoute | 'unknown';
    method: string;
    target: string;
    body?: string;
    /** Decoded path parameters (undefined: not decodable). */
    params: Record<string, string | undefined>;
  }

  /** One /admin request: its route, path parameters, query and body (resolved against the state). */
  const adminCall = (withBodyJunk: boolean) =>
    fc
      .tuple(
        fc.constantFrom<AdminRoute | 'unknown'>(
          'createReviewer',
          'listReviewers',
          'revokeReviewer',
          'createPartner',
          'listPartners',
          'listKeys',
          'issueKey',
          'revokeKey',
          'createMarket',
          'resolveMarket',
          'resolveMarket',
          'listDisputes',
          'getDispute',
          'decide',
          'decide',
          'listAudit',
          'unknown',
        ),
        idSegment,
        sourceSegment,
        fc.oneof(pageQuery('status'), pageQuery(), pageQuery('q')),
        fc.constantFrom(
          ['PUT', '/admin/reviewers'],
          ['PATCH', '/admin/partners'],
          ['GET', '/admin/reviewers/1'],
          ['PUT', '/admin/markets'],
          ['DELETE', '/admin/markets/1'],
          ['GET', '/admin/markets/1/resolve'],
          ['POST', '/admin/disputes'],
          ['POST', '/admin/audit'],
          ['GET', '/admin'],
          ['GET', '/admin/'],
          ['GET', '/admin/disputes/1/decision'],
          ['POST', '/admin/disputes/1/decision/x'],
          ['DELETE', '/admin/partners/acme/keys'],
          ['OPTIONS', '/admin/reviewers'],
          ['OPTIONS', '/admin/disputes/1'],
          ['TRACE', '/admin/audit'],
          ['GET', '/admin/reviewers%2F'],
          ['GET', '/admin//reviewers'],
        ),
        fc.oneof(
          { arbitrary: fc.constant<'dto'>('dto'), weight: withBodyJunk ? 6 : 10 },
          { arbitrary: junkJson.map(toJsonText), weight: withBodyJunk ? 2 : 0 },
          { arbitrary: brokenJsonText, weight: withBodyJunk ? 1 : 0 },
          { arbitrary: fc.constant(`"${'x'.repeat(BODY_LIMIT)}"`), weight: withBodyJunk ? 1 : 0 },
        ),
      )
      .chain(([route, id, source, query, unknown, bodyKind]) => {
        const dto = route === 'unknown' ? undefined : ROUTE_BODY[route];
        const body = bodyKind === 'dto' ? (dto ? adminBody(dto) : fc.constant(undefined)) : fc.constant(bodyKind);
        return body.map((bodyText): AdminCall => {
          const sourceWire = resolveSegment(source, partnerSources(), percentEncode);
          const decodedSource = tryDecode(sourceWire);
          const idWire = resolveSegment(id, idsFor(route as AdminRoute, decodedSource));
          const params = { id: tryDecode(idWire), source: decodedSource };
          const call = (method: string, target: string, paramsUsed: string[]): AdminCall => ({
            route,
            method,
            target,
            body: bodyText,
            params: Object.fromEntries(paramsUsed.map((name) => [name, params[name as 'id' | 'source']])),
          });
          switch (route) {
            case 'createReviewer':
              return call('POST', '/admin/reviewers', []);
            case 'listReviewers':
              return call('GET', `/admin/reviewers${query}`, []);
            case 'revokeReviewer':
              return call('DELETE', `/admin/reviewers/${idWire}`, ['id']);
            case 'createPartner':
              return call('POST', '/admin/partners', []);
            case 'listPartners':
              return call('GET', `/admin/partners${query}`, []);
            case 'listKeys':
              return call('GET', `/admin/partners/${sourceWire}/keys${query}`, ['source']);
            case 'issueKey':
              return call('POST', `/admin/partners/${sourceWire}/keys`, ['source']);
            case 'revokeKey':
              return call('DELETE', `/admin/partners/${sourceWire}/keys/${idWire}`, ['source', 'id']);
            case 'createMarket':
              return call('POST', '/admin/markets', []);
            case 'resolveMarket':
              return call('POST', `/admin/markets/${idWire}/resolve`, ['id']);
            case 'listDisputes':
              return call('GET', `/admin/disputes${query}`, []);
            case 'getDispute':
              return call('GET', `/admin/disputes/${idWire}`, ['id']);
            case 'decide':
              return call('POST', `/admin/disputes/${idWire}/decision`, ['id']);
            case 'listAudit':
              return call('GET', `/admin/audit${query}`, []);
            default:
              return { route: 'unknown', method: unknown[0], target: unknown[1], body: bodyText, params: {} };
          }
        });
      })
      // Node answers 431 itself, before the app, to a request line over its 16 KiB header limit.
      .filter((call) => call.target.length < 8000)
      // Wire ids name rows too (`01` is 1): never the accounts the fuzzer calls with.
      .filter((call) => call.route !== 'revokeReviewer' || !credentialHolders.has(canonicalPathId(call.params.id) ?? ''));

  const sendAdmin = (call: AdminCall, authorization: string | undefined) => {
    const headers: [string, string][] = [];
    if (authorization !== undefined) headers.push(['Authorization', authorization]);
    if (call.body !== undefined) headers.push(['Content-Type', 'application/json']);
    return send({ method: call.method, target: call.target, headers, body: call.body });
  };

  it('/admin: without valid credentials, or as a reviewer on admin-only routes, nothing but 4012 / 4031 / 4044', async () => {
    const credential = fc.oneof(
      fc.constantFrom(
        undefined,
        '',
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from(`x:${MASTER}`).toString('base64')}`,
        MASTER,
        `Bearer ${MASTER} x`,
        `Bearer ${MASTER}x`,
        `Bearer ${MASTER.slice(0, -1)}`,
        `Bearer ${MASTER.toUpperCase()}`,
        `Bearer ${revokedAdminKey}`,
        `Bearer ${acmeKey}`,
        `Bearer ${adminKey}, Bearer ${adminKey}`,
        `Token ${adminKey}`,
      ),
      headerValue,
      headerValue.map((value) => `Bearer ${value}`),
      fc.constant(`Bearer ${reviewerKey}`),
      fc.constant(`bearer \t${reviewerKey}  `),
    );
    await fc.assert(
      fc.asyncProperty(
        adminCall(true).filter((call) => Object.values(call.params).every((value) => value !== undefined)),
        credential,
        fuzzCase(async (call, authorization) => {
          const match = /^Bearer\s+(\S+)\s*$/i.exec((authorization ?? '').trim());
          const isReviewer = match?.[1] === reviewerKey;
          if (match?.[1] === MASTER || match?.[1] === adminKey) throw new Error('the generator made a valid admin credential');
          const code = call.route === 'unknown' ? 4044 : !isReviewer ? 4012 : ADMIN_ONLY.has(call.route) ? 4031 : undefined;
          if (code === undefined) return; // a reviewer on a reviewer route: the next property's business
          await judge('admin-auth', await sendAdmin(call, authorization), [code]);
        }),
      ),
      { seed: SEED + 4, numRuns: runs(600) },
    );
    await expectStillServing();
  }, timeout(600));

  /** The code the contract prescribes for an authorized /admin call, from the request and the state. */
  function adminModel(call: AdminCall): { codes: number[]; body?: Record<string, unknown> } {
    if (call.route === 'unknown') return { codes: [4044] };
    if (Object.values(call.params).some((value) => value === undefined)) return { codes: [4000] }; // undecodable path
    // A body is read on POST only here (GET and DELETE routes take none: theirs is thrown away).
    const sent = call.method === 'POST' ? call.body : undefined;
    if (sent !== undefined) {
      if (Buffer.byteLength(sent) > BODY_LIMIT) return { codes: [4130] };
      if (!parsedBody(decoded(sent)).ok) return { codes: [4001] };
    }
    const route = call.route;
    const id = canonicalPathId(call.params.id);
    let body: Record<string, unknown> | undefined;
    const dto = ROUTE_BODY[route];
    let verdict: Verdict = 'valid';
    if (dto) {
      // A body that is not an object is reported before a bad path id (both are pipes).
      const parsed = parsedBody(decoded(sent ?? '')) as { value: unknown };
      if (!isPlainObject(parsed.value)) return { codes: [4001] };
      body = parsed.value;
      verdict = adminBodyModels[dto](body);
    } else if (route === 'issueKey' && sent !== undefined) {
      // It takes no body: none, an empty one or {} (NoBody); members are unknown fields.
      const { value } = parsedBody(decoded(sent)) as { value: unknown };
      if (value !== undefined && !isPlainObject(value)) return { codes: [4001] };
      if (value !== undefined && Object.keys(value).length > 0) return { codes: [4000] };
    }
    if (id !== undefined && !validPathId(id)) return { codes: [4000] };
    if (verdict === 'invalid') return { codes: [4000] };
    const business = ((): number => {
      const partner = (source: unknown) => [...state.tables.partners.values()].find((row) => row.source === source);
      // Taken when it reads as a stored one (contract §10).
      const readsAs = (value: string, rows: Row[], column: string, read = skeleton) => rows.some((row) => read(row[column] as string) === read(value));
      const given = (name: string) => (body![name] as string).trim();
      switch (route) {
        case 'createReviewer': {
          const reviewers = [...state.tables.reviewers.values(), { name: 'master' }];
          return readsAs(given('name'), reviewers, 'name', skeletonIgnoringCase) ? 4093 : 0;
        }
        case 'createPartner': {
          const partners = [...state.tables.partners.values()];
          return readsAs(given('source'), partners, 'source') || readsAs(given('name'), partners, 'name') ? 4093 : 0;
        }
        case 'createMarket': {
          const source = given('source');
          if (!partner(source)) return 4042;
          return readsAs(normalizeSlug(body!.slug as string), markets().filter((row) => row.source === source), 'slug') ? 4093 : 0;
        }
        case 'resolveMarket': {
          const market = state.tables.markets.get(id!);
          return !market ? 4040 : market.status !== 'monitoring' ? 4094 : 0;
        }
        case 'decide': {
          const dispute = state.tables.disputes.get(id!);
          return !dispute ? 4041 : dispute.status !== 'open' ? 4092 : 0;
        }
        case 'getDispute':
          return state.tables.disputes.has(id!) ? 0 : 4041;
        case 'revokeReviewer':
          return state.tables.reviewers.has(id!) ? 0 : 4043;
        case 'issueKey':
          return partner(call.params.source) ? 0 : 4042;
        case 'revokeKey': {
          const owner = partner(call.params.source);
          if (!owner) return 4042;
          const key = state.tables.api_keys.get(id!);
          return key && String(key.partner_id) === String(owner.id) ? 0 : 4045;
        }
        case 'listKeys': {
          const { code } = pageQueryModel(serverQuery(call.target));
          return code !== 0 ? code : partner(call.params.source) ? 0 : 4042;
        }
        case 'listReviewers':
        case 'listPartners':
        case 'listDisputes':
        case 'listAudit':
          return pageQueryModel(serverQuery(call.target), LISTINGS[route]).code;
        default:
          return 0;
      }
    })();
    return { codes: verdict === 'unsure' ? [4000, business] : [business], body };
  }

  /** What a code-0 admin call must have written, and answered. */
  function expectAdminWrite(call: AdminCall, envelope: Envelope, changes: RowChange[], body: Record<string, unknown> | undefined, actor: string) {
    const data = envelope.data!;
    const text = (name: string) => (body![name] as string).trim(); // stored trimmed
    const name = (field: string) => text(field).normalize('NFC'); // names also in NFC (contract §10)
    switch (call.route) {
      case 'createReviewer': {
        expectChanges(changes, { 'reviewers.added': 1, 'audit_events.added': 1 });
        const [row] = rowsOf(changes, 'reviewers', 'added');
        expectEqual([row.name, row.role, row.revoked_at], [name('name'), body!.role, null], 'reviewer row');
        expectEqual([data.id, data.name, data.role], [Number(row.id), row.name, row.role], 'response');
        return expectAudit(changes, 'reviewer.created', actor);
      }
      case 'createPartner': {
        expectChanges(changes, { 'partners.added': 1, 'api_keys.added': 1, 'audit_events.added': 1 });
        const [partner] = rowsOf(changes, 'partners', 'added');
        const [key] = rowsOf(changes, 'api_keys', 'added');
        expectEqual([partner.source, partner.name, key.partner_id], [name('source'), name('name'), partner.id], 'partner rows');
        expectEqual([data.source, data.key_id], [partner.source, Number(key.id)], 'response');
        return expectAudit(changes, 'partner.created', actor);
      }
      case 'issueKey': {
        expectChanges(changes, { 'api_keys.added': 1, 'audit_events.added': 1 });
        const [key] = rowsOf(changes, 'api_keys', 'added');
        const partner = [...state.tables.partners.values()].find((row) => row.source === call.params.source)!;
        expectEqual([String(key.partner_id), data.key_id], [String(partner.id), Number(key.id)], 'issued key');
        return expectAudit(changes, 'key.issued', actor);
      }
      case 'revokeKey':
      case 'revokeReviewer': {
        const table = call.route === 'revokeKey' ? 'api_keys' : 'reviewers';
        const changed = rowsOf(changes, table, 'changed');
        // revoked before: nothing changes, nothing is recorded
        expectChanges(changes, { [`${table}.changed`]: changed.length, 'audit_events.added': changed.length });
        if (changed.length > 1 || (changed[0] && (String(changed[0].id) !== canonicalPathId(call.params.id) || changed[0].revoked_at === null))) {
          throw new PropertyFailure(`revocation changed ${describeChanges(changes)}`);
        }
        expectEqual(typeof state.tables[table].get(canonicalPathId(call.params.id)!)?.revoked_at, 'string', 'revoked_at');
        if (changed.length === 0) return;
        return expectAudit(changes, call.route === 'revokeKey' ? 'key.revoked' : 'reviewer.revoked', actor);
      }
      case 'createMarket': {
        expectChanges(changes, { 'markets.added': 1, 'audit_events.added': 1 });
        const [market] = rowsOf(changes, 'markets', 'added');
        expectEqual(
          [market.source, market.slug, market.status, market.verdict],
          [text('source'), normalizeSlug(body!.slug as string).normalize('NFC'), 'monitoring', null],
          'market row',
        );
        expectEqual([data.id, data.status, data.proofs, data.disputes], [Number(market.id), 'monitoring', [], null], 'response');
        return expectAudit(changes, 'market.created', actor);
      }
      case 'resolveMarket': {
        const proofs = body!.proofs as Record<string, unknown>[];
        expectChanges(changes, { 'markets.changed': 1, 'proofs.added': proofs.length, 'audit_events.added': 1 });
        const [market] = rowsOf(changes, 'markets', 'changed');
        expectEqual(
          [String(market.id), market.status, market.verdict, market.confidence, market.reasoning],
          [canonicalPathId(call.params.id), 'resolved', text('verdict'), body!.confidence, text('reasoning')],
          'resolved market',
        );
        const added = rowsOf(changes, 'proofs', 'added').sort((a, b) => Number(a.position) - Number(b.position));
        expectEqual(
          added.map((row) => [String(row.market_id), row.position, row.chain, row.tx_hash]),
          proofs.map((p, position) => [canonicalPathId(call.params.id), position, p.chain, (p.tx_hash as string).trim()]),
          'proof rows',
        );
        expectEqual([data.id, data.status, data.verdict], [Number(market.id), 'resolved', market.verdict], 'response');
        return expectAudit(changes, 'market.resolved', actor);
      }
      case 'decide': {
        expectChanges(changes, { 'disputes.changed': 1, 'markets.changed': 1, 'audit_events.added': 1 });
        const [dispute] = rowsOf(changes, 'disputes', 'changed');
        const [market] = rowsOf(changes, 'markets', 'changed');
        const final = body!.type === 'override' ? dispute.submitter_selection : market.verdict;
        expectEqual(
          [String(dispute.id), dispute.status, dispute.decision_type, dispute.decision_reason, dispute.partner_final_verdict, dispute.decided_by],
          [canonicalPathId(call.params.id), 'closed', body!.type, text('reason_text'), final, actor],
          'decided dispute',
        );
        expectEqual([String(market.id), market.status], [String(dispute.market_id), 'closed'], 'closed market');
        expectEqual([data.id, data.status, data.market_status], [Number(dispute.id), 'closed', 'closed'], 'response');
        return expectAudit(changes, 'dispute.decided', actor);
      }
      default:
        expectChanges(changes, {});
        return expectReadAnswer(call, data);
    }
  }

  /** A read answers what the database holds. */
  function expectReadAnswer(call: AdminCall, data: Record<string, unknown>) {
    if (call.route === 'getDispute') return expectEqual(String(data.id), canonicalPathId(call.params.id), 'dispute read');
    if (call.route === 'unknown' || !isListing(call.route)) return;
    const page = pageQueryModel(serverQuery(call.target), LISTINGS[call.route]) as { limit: number; cursor?: string; status?: string; q?: string };
    const after = (row: Row) => page.cursor === undefined || BigInt(row.id as string) > BigInt(page.cursor);
    const before = (row: Row) => page.cursor === undefined || BigInt(row.id as string) < BigInt(page.cursor);
    const byId = (rows: Row[]) => rows.sort((a, b) => (BigInt(a.id as string) < BigInt(b.id as string) ? -1 : 1));
    const keysOf = (partnerId: unknown) => byId([...state.tables.api_keys.values()].filter((row) => String(row.partner_id) === String(partnerId))).reverse();
    let rows: unknown[];
    let listed: unknown[];
    switch (call.route) {
      case 'listReviewers':
        rows = byId([...state.tables.reviewers.values()].filter(after)).map((row) => Number(row.id));
        listed = (data.reviewers as { id: number }[]).map((row) => row.id);
        break;
      case 'listPartners': {
        const matches = (row: Row) => page.q === undefined || containsIgnoringCase([row.source as string, row.name as string], page.q);
        const candidates = byId([...state.tables.partners.values()].filter(after));
        // Where a letter case outside ASCII decides a match, the database's locale does: no verdict.
        if (candidates.some((row) => matches(row) === undefined)) return;
        // Each with its newest keys, at most 20.
        rows = candidates.filter(matches).map((row) => [row.source, keysOf(row.id).slice(0, 20).map((key) => Number(key.id))]);
        listed = (data.partners as { source: string; keys: { key_id: number }[] }[]).map((row) => [row.source, row.keys.map((key) => key.key_id)]);
        break;
      }
      case 'listKeys': {
        const partner = [...state.tables.partners.values()].find((row) => row.source === call.params.source)!;
        rows = keysOf(partner.id).filter(before).map((row) => Number(row.id));
        listed = (data.keys as { key_id: number }[]).map((row) => row.key_id);
        break;
      }
      case 'listDisputes':
        rows = disputes()
          .map((row) => ({ id: BigInt(row.id as string), closed: row.status === 'closed' ? 1n : 0n }))
          .filter((row) => page.status === undefined || row.closed === (page.status === 'closed' ? 1n : 0n))
          // open before closed, each by id; a cursor names a place as id * 2 + closed
          .map((row) => ({ ...row, place: row.closed * 2n ** 64n + row.id }))
          .filter((row) => page.cursor === undefined || row.place > (BigInt(page.cursor) % 2n) * 2n ** 64n + BigInt(page.cursor) / 2n)
          .sort((a, b) => (a.place < b.place ? -1 : 1))
          .map((row) => Number(row.id));
        listed = (data.disputes as { id: number }[]).map((row) => row.id);
        break;
      default:
        rows = byId([...state.tables.audit_events.values()].filter(before)).reverse().map((row) => Number(row.id));
        listed = (data.events as { id: number }[]).map((row) => row.id);
    }
    expectEqual(listed, rows.slice(0, page.limit), 'page');
    expectEqual(data.next_cursor === null, rows.length <= page.limit, 'next_cursor presence');
  }

  const actors = () =>
    fc.constantFrom<[string, string, 'admin' | 'reviewer']>(
      [`Bearer ${MASTER}`, 'master', 'admin'],
      [`bearer   ${adminKey}\t`, 'fuzz-admin', 'admin'],
      [`Bearer ${reviewerKey}`, 'fuzz-reviewer', 'reviewer'],
    );

  it('/admin with valid credentials: paths, bodies and queries get the exact code; successes write exactly their rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        adminCall(true),
        actors(),
        fuzzCase(async (call, [authorization, actor, role]) => {
          // (a path Express cannot decode fails before any guard: adminModel's 4000)
          const decodable = Object.values(call.params).every((value) => value !== undefined);
          const forbidden = role === 'reviewer' && call.route !== 'unknown' && ADMIN_ONLY.has(call.route) && decodable;
          const { codes, body } = forbidden ? { codes: [4031], body: undefined } : adminModel(call);
          const response = await sendAdmin(call, authorization);
          const parsed = call.body === undefined ? undefined : parsedBody(decoded(call.body));
          const echoes = parsed?.ok && isPlainObject(parsed.value) ? Object.keys(parsed.value) : [];
          if (parsed?.ok && isPlainObject(parsed.value) && Array.isArray(parsed.value.proofs)) {
            for (const p of parsed.value.proofs) if (isPlainObject(p)) echoes.push(...Object.keys(p));
          }
          echoes.push(...Object.keys(serverQuery(call.target)));
          const { envelope, changes } = await judge('admin', response, codes, echoes);
          if (envelope.code === 0) expectAdminWrite(call, envelope, changes, body, actor);
        }),
      ),
      { seed: SEED + 5, numRuns: runs(900) },
    );
    await expectStillServing();
  }, timeout(900));

  it('the /admin listings: any query string gets the exact code and page', async () => {
    const listings: [string, AdminRoute, Record<string, string>][] = [
      ['/admin/disputes', 'listDisputes', {}],
      ['/admin/disputes/', 'listDisputes', {}],
      ['/admin/audit', 'listAudit', {}],
      ['/admin/reviewers', 'listReviewers', {}],
      ['/admin/partners', 'listPartners', {}],
      ['/admin/partners', 'listPartners', {}], // twice: its search has the most to get wrong
      ['/admin/partners/acme/keys', 'listKeys', { source: 'acme' }],
      ['/admin/partners/Zeta.Corp_9/keys', 'listKeys', { source: 'Zeta.Corp_9' }],
      ['/admin/partners/no-such-partner/keys', 'listKeys', { source: 'no-such-partner' }],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...listings).chain(([path, route, params]) => pageQuery(LISTINGS[route]).map((query): AdminCall => ({ route, method: 'GET', target: `${path}${query}`, params }))),
        fc.constantFrom(`Bearer ${MASTER}`, `Bearer ${reviewerKey}`),
        fuzzCase(async (call, authorization) => {
          const forbidden = ADMIN_ONLY.has(call.route as AdminRoute) && authorization.includes(reviewerKey);
          const { codes } = forbidden ? { codes: [4031] } : adminModel(call);
          const { envelope } = await judge('admin-pages', await sendAdmin(call, authorization), codes, Object.keys(serverQuery(call.target)));
          if (envelope.code === 0) expectReadAnswer(call, envelope.data!);
        }),
      ),
      { seed: SEED + 6, numRuns: runs(500) },
    );
    await expectStillServing();
  }, timeout(500));

  // ---------------------------------------------------------------------------------------
  // Deterministic regressions for what the fuzzer found
  // ---------------------------------------------------------------------------------------

  describe('regressions found by the fuzzer', () => {
    // Their own partner: the admin property above may well have revoked acme's key.
    let partnerKey: string;
    beforeAll(async () => {
      partnerKey = (await fixturesOf(t).partner('regressions')).apiKey;
      await changesSinceLastLook();
    });
    let sequence = 0;
    /** A new market written straight to the table (its rows are not a request's doing). */
    async function freshMarket(status: 'resolved' | 'monitoring' = 'resolved'): Promise<number> {
      const { id } = await fixturesOf(t).market('regressions', { slug: `regression-${++sequence}`, status });
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
      expect(state.tables.markets.get(String(market))?.status).toBe('resolved');
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
      expect(state.tables.markets.get(String(market))?.status).toBe('resolved');
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
});
