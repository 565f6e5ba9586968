/**
 * Fuzzing /admin with valid credentials: every route's paths, bodies and queries, then the
 * listings' pages, against the contract's model (see test/support/fuzz-suite.ts).
 */
import { describe, it } from '@jest/globals';
import fc from 'fast-check';
import { skeleton, skeletonIgnoringCase } from '../../src/common/confusable-skeleton';
import { normalizeSlug } from '../../src/markets/market-identity';
import { describeChanges, type Row, type RowChange } from '../support/fuzz-db';
import { type Envelope, PropertyFailure } from '../support/fuzz-envelope';
import {
  adminBodyModels,
  canonicalPathId,
  containsIgnoringCase,
  isPlainObject,
  pageQueryModel,
  parsedBody,
  serverQuery,
  validPathId,
  type Verdict,
} from '../support/fuzz-models';
import {
  ADMIN_ONLY,
  type AdminCall,
  type AdminRoute,
  BODY_LIMIT,
  decoded,
  fuzzSuite,
  isListing,
  LISTINGS,
  MASTER,
  ROUTE_BODY,
  runs,
  SEED,
  timeout,
} from '../support/fuzz-suite';

describe('fuzzing /admin with valid credentials', () => {
  const suite = fuzzSuite();
  const { judge, fuzzCase, expectChanges, rowsOf, expectEqual, expectAudit, expectStillServing, markets, disputes, pageQuery, adminCall, sendAdmin } = suite;

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
      const partner = (source: unknown) => [...suite.state.tables.partners.values()].find((row) => row.source === source);
      // Taken when it reads as a stored one (contract §10).
      const readsAs = (value: string, rows: Row[], column: string, read = skeleton) => rows.some((row) => read(row[column] as string) === read(value));
      const given = (name: string) => (body![name] as string).trim();
      switch (route) {
        case 'createReviewer': {
          const reviewers = [...suite.state.tables.reviewers.values(), { name: 'master' }];
          // In any letter case, or as written (`МIKEY` with a Cyrillic М beside `MIKEY`).
          return readsAs(given('name'), reviewers, 'name', skeletonIgnoringCase) || readsAs(given('name'), reviewers, 'name') ? 4093 : 0;
        }
        case 'createPartner': {
          const partners = [...suite.state.tables.partners.values()];
          return readsAs(given('source'), partners, 'source') || readsAs(given('name'), partners, 'name') ? 4093 : 0;
        }
        case 'createMarket': {
          const source = given('source');
          if (!partner(source)) return 4042;
          return readsAs(normalizeSlug(body!.slug as string), markets().filter((row) => row.source === source), 'slug') ? 4093 : 0;
        }
        case 'resolveMarket': {
          const market = suite.state.tables.markets.get(id!);
          return !market ? 4040 : market.status !== 'monitoring' ? 4094 : 0;
        }
        case 'decide': {
          const dispute = suite.state.tables.disputes.get(id!);
          return !dispute ? 4041 : dispute.status !== 'open' ? 4092 : 0;
        }
        case 'getDispute':
          return suite.state.tables.disputes.has(id!) ? 0 : 4041;
        case 'revokeReviewer':
          return suite.state.tables.reviewers.has(id!) ? 0 : 4043;
        case 'issueKey':
          return partner(call.params.source) ? 0 : 4042;
        case 'revokeKey': {
          const owner = partner(call.params.source);
          if (!owner) return 4042;
          const key = suite.state.tables.api_keys.get(id!);
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
        const partner = [...suite.state.tables.partners.values()].find((row) => row.source === call.params.source)!;
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
        expectEqual(typeof suite.state.tables[table].get(canonicalPathId(call.params.id)!)?.revoked_at, 'string', 'revoked_at');
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
    const keysOf = (partnerId: unknown) => byId([...suite.state.tables.api_keys.values()].filter((row) => String(row.partner_id) === String(partnerId))).reverse();
    let rows: unknown[];
    let listed: unknown[];
    switch (call.route) {
      case 'listReviewers':
        rows = byId([...suite.state.tables.reviewers.values()].filter(after)).map((row) => Number(row.id));
        listed = (data.reviewers as { id: number }[]).map((row) => row.id);
        break;
      case 'listPartners': {
        const matches = (row: Row) => page.q === undefined || containsIgnoringCase([row.source as string, row.name as string], page.q);
        const candidates = byId([...suite.state.tables.partners.values()].filter(after));
        // Where a letter case outside ASCII decides a match, the database's locale does: no verdict.
        if (candidates.some((row) => matches(row) === undefined)) return;
        // Each with its newest keys, at most 20.
        rows = candidates.filter(matches).map((row) => [row.source, keysOf(row.id).slice(0, 20).map((key) => Number(key.id))]);
        listed = (data.partners as { source: string; keys: { key_id: number }[] }[]).map((row) => [row.source, row.keys.map((key) => key.key_id)]);
        break;
      }
      case 'listKeys': {
        const partner = [...suite.state.tables.partners.values()].find((row) => row.source === call.params.source)!;
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
        rows = byId([...suite.state.tables.audit_events.values()].filter(before)).reverse().map((row) => Number(row.id));
        listed = (data.events as { id: number }[]).map((row) => row.id);
    }
    expectEqual(listed, rows.slice(0, page.limit), 'page');
    expectEqual(data.next_cursor === null, rows.length <= page.limit, 'next_cursor presence');
  }

  const actors = () =>
    fc.constantFrom<[string, string, 'admin' | 'reviewer']>(
      [`Bearer ${MASTER}`, 'master', 'admin'],
      [`bearer   ${suite.adminKey}\t`, 'fuzz-admin', 'admin'],
      [`Bearer ${suite.reviewerKey}`, 'fuzz-reviewer', 'reviewer'],
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
        fc.constantFrom(`Bearer ${MASTER}`, `Bearer ${suite.reviewerKey}`),
        fuzzCase(async (call, authorization) => {
          const forbidden = ADMIN_ONLY.has(call.route as AdminRoute) && authorization.includes(suite.reviewerKey);
          const { codes } = forbidden ? { codes: [4031] } : adminModel(call);
          const { envelope } = await judge('admin-pages', await sendAdmin(call, authorization), codes, Object.keys(serverQuery(call.target)));
          if (envelope.code === 0) expectReadAnswer(call, envelope.data!);
        }),
      ),
      { seed: SEED + 6, numRuns: runs(500) },
    );
    await expectStillServing();
  }, timeout(500));
});
