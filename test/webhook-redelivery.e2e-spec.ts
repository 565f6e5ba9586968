import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from './support/eventually';
import { NO_RATE_LIMITS, startTestApp, type TestApp } from './support/test-app';
import { WebhookReceiver } from './support/webhook-receiver';

const MASTER = 'test-master-key-0123456789abcdef';
const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/**
 * What the back office asks before a redeliver (contract §7): each webhook's last delivered
 * sequence in the list, and how many events a redeliver after a sequence would queue, asked
 * without queueing anything. A loopback receiver (WEBHOOK_ALLOW_PRIVATE_URLS=true).
 */
describe('webhooks: the last delivered sequence and what a redeliver would send', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const as = (key: string) => ({
    get: (path: string) => t.http.get(path).set('authorization', `Bearer ${key}`).then((response) => response.body),
    post: (path: string, body?: object) => t.http.post(path).set('authorization', `Bearer ${key}`).send(body).then((response) => response.body),
  });
  const master = as(MASTER);
  const rows = async (sql: string) => (await t.dataSource.query(sql))[0].n as number;

  /** A partner with one webhook on the receiver at `/source`; its id. */
  async function partnerWithWebhook(source: string): Promise<number> {
    expect((await master.post('/admin/partners', { source, name: source })).code).toBe(0);
    const created = await master.post(`/admin/partners/${source}/webhooks`, { url: receiver.url(`/${source}`) });
    expect(created.code).toBe(0);
    return created.data.webhook_id;
  }

  /** The sequences of `source`'s events in the feed, oldest first. */
  const sequencesOf = async (source: string): Promise<number[]> => {
    const [{ sequences }] = await t.dataSource.query('SELECT array_agg(sequence::int ORDER BY sequence) AS sequences FROM market_events WHERE source = $1', [source]);
    return sequences;
  };

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ ...NO_RATE_LIMITS, ADMIN_MASTER_KEY: MASTER, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_FIRST_RETRY_SECONDS: '1' });
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('lists the greatest sequence each webhook took (null before the first), and that this server takes private URLs', async () => {
    const id = await partnerWithWebhook('tally');
    const listed = () => master.get('/admin/partners/tally/webhooks');
    const entry = (last_delivery: unknown, last_delivered_sequence: number | null) =>
      ok({
        webhooks: [{ webhook_id: id, url: receiver.url('/tally'), description: null, created_at: ISO, disabled_at: null, last_delivery, pending: 0, last_delivered_sequence }],
        private_urls_allowed: true,
      });
    expect(await listed()).toEqual(entry(null, null));

    await master.post('/admin/markets', { source: 'tally', slug: 'first' });
    await master.post('/admin/markets', { source: 'tally', slug: 'second' });
    const sequences = await sequencesOf('tally');
    await eventually(async () => expect(await listed()).toEqual(entry({ at: ISO, http_status: 200, error: null }, sequences[1])));

    // A failed attempt leaves it where it was; the retry that is taken moves it on.
    let failing = true;
    receiver.answer = (request) => (request.path === '/tally' && failing ? 500 : 200);
    try {
      await master.post('/admin/markets', { source: 'tally', slug: 'third' });
      await eventually(async () => expect((await listed()).data.webhooks[0]).toMatchObject({ last_delivery: { http_status: 500 }, pending: 1, last_delivered_sequence: sequences[1] }));
      failing = false;
      const third = (await sequencesOf('tally'))[2];
      await eventually(async () => expect(await listed()).toEqual(entry({ at: ISO, http_status: 200, error: null }, third)), 20_000);
    } finally {
      receiver.answer = () => 200;
    }
  });

  it('counts what a redeliver after a sequence would queue, the source\'s events only, and queues and audits nothing', async () => {
    const id = await partnerWithWebhook('count');
    await partnerWithWebhook('count-other');
    for (const slug of ['a', 'b', 'c']) await master.post('/admin/markets', { source: 'count', slug });
    await master.post('/admin/markets', { source: 'count-other', slug: 'not-theirs' });
    const [first, second, third] = await sequencesOf('count');
    await receiver.waitFor(3, (request) => request.path === '/count');
    const counts = `(SELECT count(*)::int FROM webhook_deliveries WHERE webhook_id = ${id}) + (SELECT count(*)::int FROM audit_events) AS n`;
    const before = await rows(`SELECT ${counts}`);

    const redeliverable = (after: string | number) => master.get(`/admin/partners/count/webhooks/${id}/redeliverable?after=${after}`);
    expect(await redeliverable(0)).toEqual(ok({ events: 3 }));
    expect(await redeliverable(first)).toEqual(ok({ events: 2 }));
    expect(await redeliverable(`000${second}`)).toEqual(ok({ events: 1 }));
    expect(await redeliverable(third)).toEqual(ok({ events: 0 }));
    expect(await redeliverable(Number.MAX_SAFE_INTEGER)).toEqual(ok({ events: 0 }));
    expect(await rows(`SELECT ${counts}`)).toBe(before);

    // The count is what the redeliver then queues.
    expect(await master.post(`/admin/partners/count/webhooks/${id}/redeliver`, { after: first })).toEqual(ok({ queued: 2 }));
  });

  it('answers as the redeliver would: 4042, 4046, 4000 for a bad or missing `after`, 4031 for a reviewer, 4012 without a key', async () => {
    const id = await partnerWithWebhook('refusals');
    const other = await partnerWithWebhook('refusals-other');
    const path = (source: string, webhook: number | string, query = '?after=0') => `/admin/partners/${source}/webhooks/${webhook}/redeliverable${query}`;
    const WEBHOOK_NOT_FOUND = error(4046, 'webhook not found');
    for (const webhook of [other, 999999, 'wh_1', '0']) expect(await master.get(path('refusals', webhook))).toEqual(WEBHOOK_NOT_FOUND);
    expect(await master.get(path('nobody', id))).toEqual(error(4042, 'partner not found'));

    const invalid = (detail: string) => error(4000, 'invalid request', detail);
    expect(await master.get(path('refusals', id, ''))).toEqual(invalid('after is required'));
    for (const after of ['-1', '1.5', 'x', '9007199254740992']) {
      expect(await master.get(path('refusals', id, `?after=${after}`))).toEqual(invalid(`after must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`));
    }
    expect(await master.get(path('refusals', id, '?after=0&limit=5'))).toEqual(invalid('limit is not a known field'));

    const reviewerKey = (await master.post('/admin/reviewers', { name: 'Rae', role: 'reviewer' })).data.api_key;
    expect(await as(reviewerKey).get(path('refusals', id))).toEqual(error(4031, 'forbidden'));
    expect((await t.http.get(path('refusals', id))).body).toEqual(error(4012, 'invalid admin credentials'));

    expect((await t.http.delete(`/admin/partners/refusals/webhooks/${id}`).set('authorization', `Bearer ${MASTER}`)).body.code).toBe(0);
    expect(await master.get(path('refusals', id))).toEqual(WEBHOOK_NOT_FOUND);
  });
});
