import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OpenApiValidator } from './support/openapi-validator';
import { startTestApp, type TestApp } from './support/test-app';

type Json = Record<string, any>;

/**
 * Each operation's error envelope in the document lists the codes that operation can answer, and
 * only those (contract §5), derived from its route: its access, its body, its own rules. Since
 * every e2e answer is validated against the document, an answer with a code its operation does
 * not list fails the test that received it.
 */
describe("the OpenAPI document's codes per operation", () => {
  let t: TestApp;
  let document: Json;

  beforeAll(async () => {
    t = await startTestApp();
    document = (await t.http.get('/docs-json')).body as Json;
  });

  afterAll(async () => {
    await t?.close();
  });

  it("lists each operation's codes from its route: its access, its body, its own rules", () => {
    const codesOf = (method: string, path: string) => document.paths[path][method].responses['200'].content['application/json'].schema.oneOf[1].properties.code.enum;
    const any = [4000, 4130, 4290, 5000, 5030, 5031];
    const sorted = (codes: number[]) => [...new Set(codes)].sort();
    expect(codesOf('get', '/oracle/markets/public')).toEqual(sorted([...any, 4100, 4101]));
    expect(codesOf('get', '/oracle/markets/changes')).toEqual(sorted([...any, 4010, 4011, 4102]));
    expect(codesOf('post', '/oracle/markets/dispute/submit')).toEqual(sorted([...any, 4010, 4011, 4001, 4040, 4030, 4091, 4090, 4095, 4096]));
    // A route that admits reviewers has no 4031; an admin's does.
    expect(codesOf('get', '/admin/disputes/{id}')).toEqual(sorted([...any, 4012, 4041]));
    expect(codesOf('get', '/admin/audit')).toEqual(sorted([...any, 4012, 4031]));
    expect(codesOf('delete', '/admin/partners/{source}/webhooks/{webhook_id}')).toEqual(sorted([...any, 4012, 4031, 4042, 4046]));
    expect(codesOf('post', '/admin/partners/{source}/webhooks/{webhook_id}/rotate-secret')).toEqual(sorted([...any, 4001, 4012, 4031, 4042, 4046]));
  });

  it("refuses an answer whose code its operation does not list, as a generated client's types would", () => {
    const validator = new OpenApiValidator(document);
    const answer = (target: string, code: number, msg: string) => ({
      method: 'GET',
      target,
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      text: JSON.stringify({ code, msg, detail: msg }),
    });
    expect(validator.problems(answer('/oracle/markets/changes?after=1', 4102, 'changes cursor expired'))).toEqual([]);
    expect(validator.problems(answer('/oracle/markets/changes?after=1', 4091, 'market already has a dispute'))).not.toEqual([]);
    expect(validator.problems(answer('/oracle/markets/public', 4010, 'api key is required'))).not.toEqual([]);
    expect(validator.problems(answer('/admin/disputes/1', 4031, 'forbidden'))).not.toEqual([]);
    // A path no operation names: the catalogue's 4044.
    expect(validator.problems(answer('/oracle/nowhere', 4044, 'not found'))).toEqual([]);
  });
});
