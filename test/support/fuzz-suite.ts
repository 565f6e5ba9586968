/**
 * The fuzz suites' shared harness (test/fuzz/*.e2e-spec.ts, one per route family), with fast-check.
 *
 * Every generated request must get HTTP 200 with the envelope, a catalogued code and msg, never
 * 5000 and never an internal detail; the code the contract prescribes (fuzz-models.ts); and a
 * rejected request must leave every mutable table exactly as it was, while each success must
 * have written exactly its rows. After each property a known-good request must still work.
 * Each suite starts its own app with the same fixtures (fuzzSuite).
 *
 *   FUZZ_SEED=<int>   the seed (default below, fixed for reproducibility; fast-check prints the
 *                     seed and path of any failure, replay with FUZZ_SEED and fc's `path`)
 *   FUZZ_RUNS=<x>     scales the number of runs of every property (default 1: 4,550 generated
 *                     cases over the suites)
 *   FUZZ_STATS=1      prints, per suite, what the generated requests were answered
 */
import { afterAll, beforeAll, expect } from '@jest/globals';
import fc from 'fast-check';
import type { AddressInfo } from 'node:net';
import { brokenJsonText, Entries, junkJson, junkString, type JsonTree, percentEncode, plausibleText, toJsonText, wireText } from './fuzz-arbitraries';
import { DatabaseWatcher, describeChanges, diffSnapshots, type Row, type RowChange, type Snapshot, type Table } from './fuzz-db';
import { checkEnvelope, type Envelope, PropertyFailure } from './fuzz-envelope';
import { type RawRequest, rawRequest, type RawResponse } from './fuzz-http';
import { adminBodyModels, canonicalPathId, type PageFilter } from './fuzz-models';
import { fixturesOf, NO_RATE_LIMITS, startTestApp, type TestApp } from './test-app';

export const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261121;
export const SCALE = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 1;
export const runs = (base: number) => Math.max(1, Math.round(base * SCALE));
export const timeout = (base: number) => Math.max(60_000, Math.round(base * SCALE * 40));

export const MASTER = 'fuzz-master-key-0123456789abcdefghijkl';
export const SUBMIT = '/oracle/markets/dispute/submit';
export const BODY_LIMIT = 64 * 1024;
export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The text body-parser hands to JSON.parse: UTF-8 decoded, one leading BOM dropped; undefined if the bytes are not UTF-8. */
export const decoded = (body: string | Buffer): string | undefined => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  } catch {
    return undefined;
  }
};

/** submitted_at and resolved_at values: any instant, edge cases of RFC 3339, junk. */
export const submittedAt = fc.oneof(
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

/** The name of a member a body should not have. */
export const extraKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'market_id', 'reason_text', 'MARKET_ID', 'market_id ', 'dispute_id', 'status', ''),
  junkString,
);

// /admin requests: the routes, and generators that need no state.

export type AdminRoute =
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
export const ADMIN_ONLY = new Set<AdminRoute>(['createReviewer', 'listReviewers', 'revokeReviewer', 'createPartner', 'listPartners', 'listKeys', 'issueKey', 'revokeKey', 'createMarket', 'resolveMarket', 'listAudit']);
/** The listings, and the filter each takes besides limit and cursor. */
export const LISTINGS: Partial<Record<AdminRoute, PageFilter | undefined>> = {
  listReviewers: undefined,
  listPartners: 'q',
  listKeys: undefined,
  listDisputes: 'status',
  listAudit: undefined,
};
export const isListing = (route: AdminRoute) => Object.prototype.hasOwnProperty.call(LISTINGS, route);
export const ROUTE_BODY: Partial<Record<AdminRoute, keyof typeof adminBodyModels>> = {
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

const resolveSegment = (segment: Segment, candidates: string[], encode = (text: string) => text) =>
  'wire' in segment ? segment.wire : encode(candidates[segment.pick % candidates.length]);

// Bodies per DTO: each field plausible, hostile, or missing; sometimes an extra member.
const member = (name: string, value: fc.Arbitrary<JsonTree>, freq = 12) =>
  fc.option(value.map((v): [string, JsonTree] => [name, v]), { freq, nil: undefined });
const oneOfOrJunk = (values: string[]) =>
  fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 6 }, { arbitrary: fc.constantFrom(...values.map((v) => v.toUpperCase()), ` ${values[0]}`), weight: 1 }, { arbitrary: junkJson, weight: 1 });
const textOrJunk = (max: number) => fc.oneof({ arbitrary: plausibleText(max), weight: 8 }, { arbitrary: junkJson, weight: 2 });
const proof = fc.oneof(
  { arbitrary: fc.tuple(member('chain', oneOfOrJunk(['base', 'bsc'])), member('tx_hash', textOrJunk(200))), weight: 8 },
  { arbitrary: fc.tuple(fc.constant(['chain', 'base'] as [string, JsonTree]), fc.tuple(extraKey, junkJson)), weight: 1 },
).map((entries) => new Entries((entries as ([string, JsonTree] | undefined)[]).filter((entry): entry is [string, JsonTree] => entry !== undefined)) as JsonTree);

export interface AdminCall {
  route: AdminRoute | 'unknown';
  method: string;
  target: string;
  body?: string;
  /** Decoded path parameters (undefined: not decodable). */
  params: Record<string, string | undefined>;
}

/** The app, its fixtures and credentials, the database watcher and the checks, for one suite. */
export function fuzzSuite() {
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

  // /admin requests, resolved against the state.

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

  const sourceText = () =>
    fc.oneof(
      { arbitrary: fc.constantFrom(...partnerSources(), ' acme ', 'no-such-partner'), weight: 3 },
      { arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/), weight: 3 },
      { arbitrary: textOrJunk(64), weight: 2 },
      { arbitrary: fc.constantFrom('-lead', '.x', 'a b', 'a/b', 'ü', 'x'.repeat(64), 'x'.repeat(65), 'acme\u0000'), weight: 1 },
    );
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

  // Values set in beforeAll are read through getters: a suite destructures this at collection time.
  return {
    get t() {
      return t;
    },
    get db() {
      return db;
    },
    get state() {
      return state;
    },
    get acmeKey() {
      return acmeKey;
    },
    get globexKey() {
      return globexKey;
    },
    get revokedPartnerKey() {
      return revokedPartnerKey;
    },
    get adminKey() {
      return adminKey;
    },
    get reviewerKey() {
      return reviewerKey;
    },
    get revokedAdminKey() {
      return revokedAdminKey;
    },
    publicMarkets,
    send,
    changesSinceLastLook,
    judge,
    fuzzCase,
    expectChanges,
    rowsOf,
    expectEqual,
    expectAudit,
    expectStillServing,
    markets,
    disputes,
    hasDispute,
    pageQuery,
    adminCall,
    sendAdmin,
  };
}
