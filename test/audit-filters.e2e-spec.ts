import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NO_RATE_LIMITS, startTestApp, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
const invalid = (detail: string) => ({ code: 4000, msg: 'invalid request', detail });
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

interface Event {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

/** GET /admin/audit filtered by actor, action, target and time, paged as every admin list. */
describe('the audit trail, filtered (GET /admin/audit)', () => {
  let t: TestApp;
  const get = (query: string, key = MASTER) => t.http.get(`/admin/audit${query}`).set('authorization', `Bearer ${key}`).then((response) => response.body);
  /** Events of another day, written as the trail holds them (appending is what it allows). */
  const old: Event[] = [];

  beforeAll(async () => {
    t = await startTestApp({ ...NO_RATE_LIMITS, ADMIN_MASTER_KEY: MASTER });
    const rows: [string, string, string, string][] = [
      ['2026-01-01T10:00:00.000Z', 'ada', 'market.created', 'market:1'],
      ['2026-01-01T11:00:00.000Z', 'bob', 'market.created', 'market:2'],
      ['2026-01-01T12:00:00.000Z', 'ada', 'market.resolved', 'market:1'],
      // Appended after the others, made earlier (its transaction began first): by time, it comes first.
      ['2026-01-01T09:00:00.000Z', 'ada', 'reviewer.key_replaced', 'reviewer:7'],
    ];
    for (const [at, actor, action, target] of rows) {
      const [{ id }] = await t.dataSource.query(
        'INSERT INTO audit_events (at, actor, action, target, details) VALUES ($1, $2, $3, $4, $5) RETURNING id::int',
        [at, actor, action, target, JSON.stringify({ actor_id: 1 })],
      );
      old.push({ id, at, actor, action, target, details: { actor_id: 1 } });
    }
    const body = { source: 'acme', name: 'Acme' };
    expect((await t.http.post('/admin/partners').set('authorization', `Bearer ${MASTER}`).send(body)).body.code).toBe(0);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('by actor, action and target, each exact and trimmed, together too, newest first', async () => {
    const [made, other, resolved, replaced] = old;
    expect(await get('?actor=ada')).toEqual(ok({ events: [replaced, resolved, made], next_cursor: null }));
    expect(await get('?actor=%20bob%20')).toEqual(ok({ events: [other], next_cursor: null }));
    expect(await get('?actor=Ada')).toEqual(ok({ events: [], next_cursor: null }));
    expect(await get('?action=market.created')).toEqual(ok({ events: [other, made], next_cursor: null }));
    // A retired action is still found.
    expect(await get('?action=reviewer.key_replaced')).toEqual(ok({ events: [replaced], next_cursor: null }));
    expect(await get('?target=market:1&actor=ada&action=market.resolved')).toEqual(ok({ events: [resolved], next_cursor: null }));
    expect(await get('?target=partner:acme')).toEqual(
      ok({ events: [{ id: replaced.id + 1, at: ISO, actor: 'master', action: 'partner.created', target: 'partner:acme', details: { actor_id: null, name: 'Acme', key_id: 1 } }], next_cursor: null }),
    );
  });

  it('by time, from (inclusive) to (exclusive), newest first by when each write was made', async () => {
    const [made, other, resolved, replaced] = old;
    expect(await get('?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z')).toEqual(ok({ events: [resolved, other, made, replaced], next_cursor: null }));
    expect(await get('?from=2026-01-01T10:00:00Z&to=2026-01-01T12:00:00Z')).toEqual(ok({ events: [other, made], next_cursor: null }));
    expect(await get('?from=2026-01-01T11:00:00%2B01:00&actor=ada')).toEqual(ok({ events: [resolved, made], next_cursor: null }));
    expect(await get('?to=2026-01-01T10:00:00.001Z')).toEqual(ok({ events: [made, replaced], next_cursor: null }));
    expect(await get('?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z')).toEqual(ok({ events: [], next_cursor: null }));
    // Today's write, after them all.
    expect((await get('?from=2026-01-02T00:00:00Z')).data.events.map((event: Event) => event.action)).toEqual(['partner.created']);
  });

  it('pages filtered lists as every admin list: limit, then next_cursor as cursor, null on the last page', async () => {
    const [made, other, resolved, replaced] = old;
    const byTime = '&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z';
    const first = await get(`?limit=3${byTime}`);
    expect(first).toEqual(ok({ events: [resolved, other, made], next_cursor: expect.any(String) }));
    expect(await get(`?limit=3&cursor=${first.data.next_cursor}${byTime}`)).toEqual(ok({ events: [replaced], next_cursor: null }));

    const ada = await get('?actor=ada&limit=2');
    expect(ada).toEqual(ok({ events: [replaced, resolved], next_cursor: expect.any(String) }));
    expect(await get(`?actor=ada&limit=2&cursor=${ada.data.next_cursor}`)).toEqual(ok({ events: [made], next_cursor: null }));
  });

  it('4000 for a blank or overlong text, a time that is no RFC 3339 timestamp, a repeated or unknown parameter; 4031 for a reviewer', async () => {
    const text = (name: string, max: number) => invalid(`${name} must be a non-empty string of at most ${max} characters`);
    expect(await get('?actor=%20%20')).toEqual(text('actor', 200));
    expect(await get(`?action=${'a'.repeat(65)}`)).toEqual(text('action', 64));
    expect(await get(`?target=${'t'.repeat(201)}`)).toEqual(text('target', 200));
    expect(await get('?actor=a&actor=b')).toEqual(text('actor', 200));
    for (const from of ['yesterday', '2026-01-01', '2026-13-01T00:00:00Z', '0000-01-01T00:00:00Z']) {
      expect(await get(`?from=${from}`)).toEqual(invalid('from must be an RFC 3339 timestamp'));
    }
    expect(await get('?to=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z')).toEqual(invalid('to must be an RFC 3339 timestamp'));
    expect(await get('?actor=ada&source=acme')).toEqual(invalid('source is not a known field'));

    const reviewer = await t.http.post('/admin/reviewers').set('authorization', `Bearer ${MASTER}`).send({ name: 'Rae', role: 'reviewer' });
    expect(await get('?actor=ada', reviewer.body.data.api_key)).toEqual({ code: 4031, msg: 'forbidden', detail: 'forbidden' });
  });
});
