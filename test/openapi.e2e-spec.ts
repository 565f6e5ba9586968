import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { ErrorCatalogue } from '../src/common/error-catalogue';
import { ADMIN_ROLES } from '../src/auth/admin-role';
import { CHANGE_TYPES } from '../src/changes/change-event';
import { CHAINS, CONFIDENCES, DECISION_TYPES, DISPUTE_STATUSES, MARKET_STATUSES } from '../src/markets/market-state';
import { OpenApiValidator } from './support/openapi-validator';
import { arbitraryOf } from './support/schema-arbitrary';
import { fixturesOf, NO_RATE_LIMITS, startTestApp, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Math.round(1500 * Number(process.env.FUZZ_RUNS ?? 1));

type Json = Record<string, any>;

/**
 * The document a client generator reads (/docs-json) against the service itself: a standard
 * linter's recommended rules, and requests generated from the document's own schemas (as a
 * property-based API tester does), of which none it calls valid may be answered 4000. Every
 * answer is also checked against the document (test-app's validating supertest).
 */
describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: Json;
  let partnerKey: string;

  beforeAll(async () => {
    t = await startTestApp({
      ADMIN_MASTER_KEY: MASTER,
      ...NO_RATE_LIMITS,
    });
    document = (await t.http.get('/docs-json')).body as Json;
    const fixtures = fixturesOf(t);
    const partner = await fixtures.partner('openapi');
    partnerKey = partner.apiKey;
    // Something for generated ids (mostly small) to find: markets in every status, disputes.
    for (const status of ['monitoring', 'resolved', 'resolved', 'disputed'] as const) await fixtures.market(partner.source, { status });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('lets a generated client tell success from error by code alone: 0 only in the success envelope, the catalogue in the error one, narrowed per operation', () => {
    const catalogue = Object.values(ErrorCatalogue);
    const errorCodes = document.components.schemas.ErrorEnvelope.properties.code.enum as number[];
    expect(errorCodes).toEqual(catalogue.map((entry) => entry.code));
    expect(errorCodes).not.toContain(0);
    expect(document.components.schemas.ErrorEnvelope.required).toEqual(expect.arrayContaining(['code', 'msg', 'detail']));
    let enveloped = 0;
    for (const [path, operations] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(operations as Json)) {
        const envelope = operation.responses?.['200']?.content?.['application/json']?.schema;
        if (!envelope?.oneOf) continue;
        enveloped++;
        const [success, error] = envelope.oneOf;
        const codes = error.properties.code.enum as number[];
        const route = `${method} ${path}`;
        expect({ route, success: success.properties.code.enum, error: error.allOf }).toEqual({ route, success: [0], error: [{ $ref: '#/components/schemas/ErrorEnvelope' }] });
        // Every operation: a malformed request, headers too large, too many requests, and the instance's failures; 4044 is no operation's.
        expect({ route, codes }).toEqual({ route, codes: expect.arrayContaining([4000, 4130, 4290, 5000, 5030, 5031]) });
        expect({ route, codes: [...codes].sort() }).toEqual({ route, codes: codes.filter((code) => code !== 4044 && errorCodes.includes(code)).sort() });
        const msgs = [...new Set(codes.map((code) => catalogue.find((entry) => entry.code === code)!.msg))];
        expect({ route, msgs: error.properties.msg.enum }).toEqual({ route, msgs });
      }
    }
    expect(enveloped).toBe(26);
  });

  it("passes Redocly's recommended rules (redocly.yaml: HTTP-200 envelope, so no 4xx responses)", async () => {
    const config = await createConfig(readFileSync('redocly.yaml', 'utf8'), { configPath: 'redocly.yaml' });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'docs-json.json', config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([]);
  });

  it('declares every timestamp of an answer as a date-time (null only where it may be), so that generated clients read dates', () => {
    const schemas = (document as { components: { schemas: Record<string, { properties?: Record<string, { type?: unknown; format?: unknown }> }> } })
      .components.schemas;
    // Request bodies (the DTOs) say what they accept: submitted_at takes any value (spec §4.2).
    const timestamps = Object.entries(schemas)
      .filter(([schema]) => !schema.endsWith('Dto'))
      .flatMap(([schema, { properties = {} }]) =>
        Object.entries(properties)
          .filter(([name]) => name === 'at' || name.endsWith('_at'))
          .map(([name, { type, format }]) => ({ name: `${schema}.${name}`, type, format })),
      );
    expect(timestamps.length).toBe(23);
    const nullable = ['MarketItem.resolved_at', 'PartnerKey.revoked_at', 'PartnerKeyDetail.revoked_at', 'PartnerKeyDetail.last_used_at', 'Reviewer.revoked_at', 'Webhook.disabled_at'];
    expect(timestamps).toEqual(
      timestamps.map(({ name }) => ({ name, type: nullable.includes(name) ? ['string', 'null'] : 'string', format: 'date-time' })),
    );
  });

  it('calls a dispute body valid exactly when the service takes it, at the edges of its rules', async () => {
    const schemas = new OpenApiValidator(document);
    const documentTakes = (body: Json) => schemas.conforms('SubmitDisputeDto', body);
    const valid = { market_id: 999_999, submitter_id: 'u', submitter_name: 'U', submitter_selection: 'NO', reason_text: 'r' };
    const cases: [string, Json][] = [
      ['an id with leading zeros', { market_id: '0000999999' }],
      ['an id of 20 digits', { market_id: '00000000000000999999' }],
      ['an id of 21 digits', { market_id: '000000000000000999999' }],
      ['an id of zeros', { market_id: '000' }],
      ['an id past 2^53-1', { market_id: '9007199254740992' }],
      ['a variation selector alone', { submitter_selection: '\uFE0F' }],
      ['variation selectors in spaces', { reason_text: ' \uFE0E\uFE0F ' }],
      ['spaces alone', { reason_text: ' \t ' }],
      ['a NUL', { submitter_name: 'a\u0000b' }],
      ['an emoji', { submitter_name: '\u{1F600}' }],
    ];
    const disagreements: string[] = [];
    for (const [name, change] of cases) {
      const body = { ...valid, ...change };
      const { body: answer } = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partnerKey).send(body);
      const serviceTakes = answer.code !== 4000;
      if (serviceTakes !== documentTakes(body)) disagreements.push(`${name}: the document ${documentTakes(body) ? 'takes' : 'refuses'} it, the service answers ${answer.code}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('reads the body of every POST operation it lists (@JsonBody): a malformed one is answered 4001', async () => {
    const posts = Object.entries<Json>(document.paths).filter(([, methods]) => 'post' in methods).map(([route]) => route);
    expect(posts.length).toBeGreaterThanOrEqual(10);
    for (const route of posts) {
      const target = route.replace('{source}', 'openapi').replace(/\{[^}]+\}/g, '1');
      const call = t.http.post(target).set('content-type', 'application/json').set('authorization', `Bearer ${MASTER}`);
      const { body } = await call.set('x-api-key', partnerKey).send('{"a":');
      expect([route, body.code]).toEqual([route, 4001]);
    }
  });

  it('answers no request it calls valid with 4000 (nor 5000): requests generated from its own schemas', async () => {
    const operations = Object.entries<Json>(document.paths).flatMap(([route, methods]) =>
      Object.entries<Json>(methods).map(([method, operation]) => ({ route, method, operation })),
    );
    const requests = fc.constantFrom(...operations).chain(({ route, method, operation }) => {
      const parameters: Json[] = operation.parameters ?? [];
      const valueOf = (parameter: Json) => arbitraryOf(parameter.schema, document).map(String);
      const inPath: Record<string, fc.Arbitrary<string>> = Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, valueOf(p)]));
      const inQuery = parameters.filter((p) => p.in === 'query');
      const query = fc.record<Record<string, string>>(Object.fromEntries(inQuery.map((p) => [p.name, valueOf(p)])), {
        requiredKeys: inQuery.filter((p) => p.required).map((p) => p.name as string),
      });
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const body = bodySchema ? arbitraryOf(bodySchema, document) : fc.constant(undefined);
      return fc.record({ path: fc.record(inPath), query, body }).map((request) => ({ route, method, operation, ...request }));
    });

    const [{ head }] = await t.dataSource.query('SELECT last_sequence::int AS head FROM change_log_head');
    const answered = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(requests, async (request) => {
        // A cursor is one an answer gave, at most the newest event's sequence (past it: 4000).
        if ('after' in request.query) request.query.after = String(Number(request.query.after) % (head + 1));
        // A valid long poll waits up to wait_ms for nothing to come: asked for none here.
        if ('wait_ms' in request.query) request.query.wait_ms = '0';
        const target =
          request.route.replace(/\{([^}]+)\}/g, (_: string, name: string) => encodeURIComponent(request.path[name])) +
          (Object.keys(request.query).length > 0 ? `?${new URLSearchParams(request.query as Record<string, string>)}` : '');
        const call = (t.http as any)[request.method](target);
        const schemes: string[] = (request.operation.security ?? []).flatMap((requirement: Json) => Object.keys(requirement));
        if (schemes.includes('partner-key')) call.set('x-api-key', partnerKey);
        if (schemes.includes('admin-key')) call.set('authorization', `Bearer ${MASTER}`);
        const response = request.body === undefined ? await call : await call.send(request.body as object);
        const code = typeof response.body?.code === 'number' ? response.body.code : response.status;
        answered.set(String(code), (answered.get(String(code)) ?? 0) + 1);
        if (code === 4000 || code === 5000) {
          throw new Error(`${request.method.toUpperCase()} ${target} ${JSON.stringify(request.body)} → ${JSON.stringify(response.body)}`);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generated requests reached the routes' work, not only their refusals.
    if (process.env.FUZZ_STATS === '1') process.stdout.write(`answers by code: ${JSON.stringify(Object.fromEntries(answered))}\n`);
    expect(answered.get('0')).toBeGreaterThan(RUNS / 4);
  }, 30_000 + RUNS * 25);

  it('states each enumerated field with the values its const list declares (market-state.ts, admin-role.ts, change-event.ts)', () => {
    const enumOf = (schema: string, property: string) =>
      (document.components.schemas[schema].properties[property].enum as unknown[]).filter((value) => value !== null).sort();
    const declared: [string, string, readonly string[]][] = [
      ['MarketItem', 'status', MARKET_STATUSES],
      ['MarketItem', 'confidence', CONFIDENCES],
      ['ProofItem', 'chain', CHAINS],
      ['DisputeItem', 'status', DISPUTE_STATUSES],
      ['Decision', 'type', DECISION_TYPES],
      ['AdminDispute', 'status', DISPUTE_STATUSES],
      ['AdminDispute', 'market_status', MARKET_STATUSES],
      ['AdminDecision', 'type', DECISION_TYPES],
      ['DecisionDto', 'type', DECISION_TYPES],
      ['Reviewer', 'role', ADMIN_ROLES],
      ['CreatedReviewer', 'role', ADMIN_ROLES],
      ['SignedInAccount', 'role', ADMIN_ROLES],
      ['ChangeEventItem', 'type', CHANGE_TYPES],
    ];
    for (const [schema, property, values] of declared) expect({ schema, property, values: enumOf(schema, property) }).toEqual({ schema, property, values: [...values].sort() });
  });

  it("holds the same lists in the database's CHECK constraints (the migrations wrote them)", async () => {
    const declared: Record<string, readonly string[]> = {
      ck_markets_status: MARKET_STATUSES,
      ck_markets_confidence: CONFIDENCES,
      ck_proofs_chain: CHAINS,
      ck_disputes_status: DISPUTE_STATUSES,
      ck_disputes_decision_type: DECISION_TYPES,
      ck_reviewers_role: ADMIN_ROLES,
      ck_market_events_type: CHANGE_TYPES,
    };
    const rows: { name: string; definition: string }[] = await t.dataSource.query(
      'SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = ANY($1)',
      [Object.keys(declared)],
    );
    const inDatabase = Object.fromEntries(rows.map(({ name, definition }) => [name, [...definition.matchAll(/'([^']*)'::text/g)].map((match) => match[1])]));
    expect(inDatabase).toEqual(Object.fromEntries(Object.entries(declared).map(([name, values]) => [name, [...values]])));
  });

  it('builds in SQL exactly the members the declared MarketItem and AdminDispute have (market-item.ts, admin-dispute.ts)', async () => {
    const admin = (request: any) => request.set('authorization', `Bearer ${MASTER}`);
    const members = (schema: string) => Object.keys(document.components.schemas[schema].properties).sort();
    const fixtures = fixturesOf(t);
    const partner = await fixtures.partner('shapes');
    for (const status of ['monitoring', 'resolved', 'disputed'] as const) await fixtures.market(partner.source, { slug: status, status });
    const { id: marketId } = await fixtures.market(partner.source, { slug: 'decided' });
    const filed = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', partner.apiKey)
      .send({ market_id: marketId, submitter_id: 'u', submitter_name: 'U', submitter_selection: 'NO', reason_text: 'r' });
    const decided = await admin(t.http.post(`/admin/disputes/${filed.body.data.dispute_id}/decision`)).send({ type: 'override', reason_text: 'r' });
    expect(decided.body.code).toBe(0);
    const adminDispute = decided.body.data as Json;
    expect(Object.keys(adminDispute).sort()).toEqual(members('AdminDispute'));
    expect(Object.keys(adminDispute.decision).sort()).toEqual(members('AdminDecision'));

    const markets = (await admin(t.http.get('/admin/markets?source=shapes'))).body.data.markets as Json[];
    expect(markets.map((market) => market.status).sort()).toEqual([...MARKET_STATUSES].sort());
    for (const market of markets) expect(Object.keys(market).sort()).toEqual(members('MarketItem'));
    const closed = markets.find((market) => market.id === marketId)!;
    expect(Object.keys(closed.proofs[0]).sort()).toEqual(members('ProofItem'));
    expect(Object.keys(closed.disputes[0]).sort()).toEqual(members('DisputeItem'));
    expect(Object.keys(closed.disputes[0].decision).sort()).toEqual(members('Decision'));
  });
});
