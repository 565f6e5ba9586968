import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { OpenApiValidator } from './support/openapi-validator';
import { eventually, settle } from './support/eventually';
import { NO_RATE_LIMITS, startTestApp, type TestApp } from './support/test-app';
import { type Received, WebhookReceiver } from './support/webhook-receiver';

const MASTER = 'test-master-key-0123456789abcdef';
const error = (code: number, msg: string, detail = msg) => ({ code, msg, detail });
const ok = (data: unknown) => ({ code: 0, msg: 'success', data });
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const SECRET = expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/);
const WEBHOOK_NOT_FOUND = error(4046, 'webhook not found');

interface Payload {
  type: string;
  timestamp: string;
  data: { sequence: number; market: { id: number; slug: string; source: string; status: string } };
}

/**
 * The webhooks of contract §7 on a loopback receiver (WEBHOOK_ALLOW_PRIVATE_URLS=true; the URL
 * rules with the flag off: webhook-urls.e2e-spec.ts), every request verified with the Standard
 * Webhooks library; the first retry comes after 1–2 s here (WEBHOOK_FIRST_RETRY_SECONDS).
 */
describe('webhooks (/admin/partners/{source}/webhooks, deliveries)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let reviewerKey: string;

  const as = (key: string) => ({
    get: (path: string) => t.http.get(path).set('authorization', `Bearer ${key}`).then((response) => response.body),
    post: (path: string, body?: object) => t.http.post(path).set('authorization', `Bearer ${key}`).send(body).then((response) => response.body),
    delete: (path: string) => t.http.delete(path).set('authorization', `Bearer ${key}`).then((response) => response.body),
  });
  const master = as(MASTER);

  /** A partner of its own for a test, its API key. */
  async function partner(source: string): Promise<string> {
    const created = await master.post('/admin/partners', { source, name: `${source} Ltd` });
    expect(created.code).toBe(0);
    return created.data.api_key;
  }

  async function register(source: string, path: string, description?: string): Promise<{ webhook_id: number; secret: string }> {
    const created = await master.post(`/admin/partners/${source}/webhooks`, { url: receiver.url(path), description });
    expect(created.code).toBe(0);
    return created.data;
  }

  /** A market of `source` created, then resolved, through the admin API: two events. */
  async function resolvedMarket(source: string, slug: string): Promise<number> {
    const created = await master.post('/admin/markets', { source, slug });
    const resolved = await master.post(`/admin/markets/${created.data.id}/resolve`, {
      verdict: 'YES',
      confidence: 'HIGH',
      reasoning: 'confirmed',
      proofs: [{ chain: 'base', tx_hash: '0x1' }],
    });
    expect([created.code, resolved.code]).toEqual([0, 0]);
    return created.data.id;
  }

  /** `request` verified with `secret` as a partner would: its parsed payload. */
  const verified = (request: Received, secret: string) => new Webhook(secret).verify(request.body, request.headers) as Payload;
  const at = (path: string) => (request: Received) => request.path === path;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ ...NO_RATE_LIMITS, ADMIN_MASTER_KEY: MASTER, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_FIRST_RETRY_SECONDS: '1' });
    reviewerKey = (await master.post('/admin/reviewers', { name: 'Rae', role: 'reviewer' })).data.api_key;
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  describe('the admin routes', () => {
    it('registers a webhook (its secret shown once), lists it without the secret, and audits it without the secret', async () => {
      await partner('admin-routes');
      const url = receiver.url('/admin-routes');
      const created = await master.post('/admin/partners/admin-routes/webhooks', { url, description: '  desk  ' });
      expect(created).toEqual(ok({ webhook_id: expect.any(Number), url, description: 'desk', secret: SECRET, created_at: ISO }));
      const bare = await master.post('/admin/partners/admin-routes/webhooks', { url: `${url}?token=abc` });
      expect(bare).toEqual(ok({ webhook_id: created.data.webhook_id + 1, url: `${url}?token=abc`, description: null, secret: SECRET, created_at: ISO }));
      expect(await master.get('/admin/partners/admin-routes/webhooks')).toEqual(
        ok({
          webhooks: [
            { webhook_id: created.data.webhook_id, url, description: 'desk', created_at: created.data.created_at, disabled_at: null, last_delivery: null, pending: 0, last_delivered_sequence: null },
            { webhook_id: bare.data.webhook_id, url: `${url}?token=abc`, description: null, created_at: ISO, disabled_at: null, last_delivery: null, pending: 0, last_delivered_sequence: null },
          ],
          private_urls_allowed: true,
        }),
      );
      const id = created.data.webhook_id;
      expect(await master.post(`/admin/partners/admin-routes/webhooks/${id}/rotate-secret`)).toEqual(ok({ webhook_id: id, secret: SECRET, previous_secret_expires_at: ISO }));
      expect(await master.post(`/admin/partners/admin-routes/webhooks/${id}/redeliver`, { after: '0' })).toEqual(ok({ queued: 0 }));
      expect(await master.delete(`/admin/partners/admin-routes/webhooks/${id}`)).toEqual(ok({ webhook_id: id, deleted_at: ISO }));
      expect((await master.get('/admin/partners/admin-routes/webhooks')).data.webhooks.map((hook: { webhook_id: number }) => hook.webhook_id)).toEqual([bare.data.webhook_id]);

      const audit = await master.get('/admin/audit?limit=5');
      expect(audit.data.events.slice(0, 5).map((event: { action: string; target: string; details: object }) => [event.action, event.target, event.details])).toEqual([
        ['webhook.deleted', 'partner:admin-routes', { actor_id: null, webhook_id: id }],
        ['webhook.redelivery_queued', 'partner:admin-routes', { actor_id: null, webhook_id: id, after: 0, queued: 0 }],
        ['webhook.secret_rotated', 'partner:admin-routes', { actor_id: null, webhook_id: id, previous_valid_hours: 24 }],
        ['webhook.created', 'partner:admin-routes', { actor_id: null, webhook_id: bare.data.webhook_id, url, description: null }],
        ['webhook.created', 'partner:admin-routes', { actor_id: null, webhook_id: id, url, description: 'desk' }],
      ]);
      expect(JSON.stringify(audit)).not.toContain('whsec_');
    });

    it('4046 for an unknown, deleted, malformed or other partner\'s webhook id; 4042 for an unknown partner', async () => {
      await partner('owner-a');
      await partner('owner-b');
      const { webhook_id: theirs } = await register('owner-b', '/owner-b');
      const { webhook_id: deleted } = await register('owner-a', '/owner-a');
      expect((await master.delete(`/admin/partners/owner-a/webhooks/${deleted}`)).code).toBe(0);
      for (const id of [theirs, deleted, 999999, 'wh_1', '0', '99999999999999999999']) {
        expect(await master.delete(`/admin/partners/owner-a/webhooks/${id}`)).toEqual(WEBHOOK_NOT_FOUND);
        expect(await master.post(`/admin/partners/owner-a/webhooks/${id}/rotate-secret`)).toEqual(WEBHOOK_NOT_FOUND);
        expect(await master.post(`/admin/partners/owner-a/webhooks/${id}/redeliver`, { after: 0 })).toEqual(WEBHOOK_NOT_FOUND);
      }
      const PARTNER_NOT_FOUND = error(4042, 'partner not found');
      expect(await master.get('/admin/partners/nobody/webhooks')).toEqual(PARTNER_NOT_FOUND);
      expect(await master.post('/admin/partners/nobody/webhooks', { url: receiver.url() })).toEqual(PARTNER_NOT_FOUND);
      expect(await master.delete(`/admin/partners/nobody/webhooks/${theirs}`)).toEqual(PARTNER_NOT_FOUND);
      expect(await master.post(`/admin/partners/nobody/webhooks/${theirs}/rotate-secret`)).toEqual(PARTNER_NOT_FOUND);
      expect(await master.post(`/admin/partners/nobody/webhooks/${theirs}/redeliver`, { after: 0 })).toEqual(PARTNER_NOT_FOUND);
    });

    it('keeps a partner to 20 webhooks at once (its list is answered whole); a deleted one frees its place', async () => {
      await partner('many');
      const ids: number[] = [];
      for (let n = 0; n < 20; n++) ids.push((await register('many', `/many-${n}`)).webhook_id);
      expect(await master.post('/admin/partners/many/webhooks', { url: receiver.url('/many-20') })).toEqual(error(4000, 'invalid request', 'a partner has at most 20 webhooks'));
      expect((await master.get('/admin/partners/many/webhooks')).data.webhooks).toHaveLength(20);
      expect((await master.delete(`/admin/partners/many/webhooks/${ids[0]}`)).code).toBe(0);
      expect((await master.post('/admin/partners/many/webhooks', { url: receiver.url('/many-20') })).code).toBe(0);
    });

    it('keeps a partner to 20 webhooks under 70 concurrent registrations', async () => {
      await partner('crowd');
      const answers = await Promise.all(Array.from({ length: 70 }, (_, n) => master.post('/admin/partners/crowd/webhooks', { url: receiver.url(`/crowd-${n}`) })));
      expect(answers.filter((answer) => answer.code === 0)).toHaveLength(20);
      expect(answers.filter((answer) => answer.code !== 0)).toEqual(Array(50).fill(error(4000, 'invalid request', 'a partner has at most 20 webhooks')));
      expect((await master.get('/admin/partners/crowd/webhooks')).data.webhooks).toHaveLength(20);
    });

    it('4031 for a reviewer, 4012 without credentials; 4000 for bad bodies', async () => {
      await partner('guarded');
      const FORBIDDEN = error(4031, 'forbidden');
      const reviewer = as(reviewerKey);
      expect(await reviewer.get('/admin/partners/guarded/webhooks')).toEqual(FORBIDDEN);
      expect(await reviewer.post('/admin/partners/guarded/webhooks', { url: receiver.url() })).toEqual(FORBIDDEN);
      expect(await reviewer.delete('/admin/partners/guarded/webhooks/1')).toEqual(FORBIDDEN);
      expect(await reviewer.post('/admin/partners/guarded/webhooks/1/rotate-secret')).toEqual(FORBIDDEN);
      expect(await reviewer.post('/admin/partners/guarded/webhooks/1/redeliver', { after: 0 })).toEqual(FORBIDDEN);
      expect((await t.http.get('/admin/partners/guarded/webhooks')).body).toEqual(error(4012, 'invalid admin credentials'));

      const invalid = (detail: string) => error(4000, 'invalid request', detail);
      expect(await master.post('/admin/partners/guarded/webhooks', {})).toEqual(invalid('url is required'));
      expect(await master.post('/admin/partners/guarded/webhooks', { url: 'ftp://example.com/x' })).toEqual(invalid('url must use https:// or http://'));
      expect(await master.post('/admin/partners/guarded/webhooks', { url: 'hooks' })).toEqual(invalid('url must be an absolute URL'));
      expect(await master.post('/admin/partners/guarded/webhooks', { url: receiver.url(), secret: 'mine' })).toEqual(invalid('secret is not a known field'));
      const { webhook_id: id } = await register('guarded', '/guarded');
      expect(await master.post(`/admin/partners/guarded/webhooks/${id}/redeliver`, {})).toEqual(invalid('after is required'));
      for (const after of [-1, 1.5, 'x', '9007199254740992']) {
        expect(await master.post(`/admin/partners/guarded/webhooks/${id}/redeliver`, { after })).toEqual(invalid(`after must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`));
      }
      expect(await master.post(`/admin/partners/guarded/webhooks/${id}/rotate-secret`, { x: 1 })).toEqual(invalid('x is not a known field'));
    });
  });

  describe('deliveries', () => {
    it('POSTs each event after the admin write or filing, signed, with the payload of contract §7 and the feed\'s event id', async () => {
      const apiKey = await partner('deliver');
      const { secret } = await register('deliver', '/deliver');
      const marketId = await resolvedMarket('deliver', 'rain-tomorrow');
      const filed = await t.http.post('/oracle/markets/dispute/submit').set('x-api-key', apiKey).send({
        market_id: marketId,
        submitter_id: 'u1',
        submitter_name: 'U One',
        submitter_selection: 'NO',
        reason_text: 'wrong',
      });
      expect((await master.post(`/admin/disputes/${filed.body.data.dispute_id}/decision`, { type: 'keep', reason_text: 'checked' })).code).toBe(0);
      // In any order: up to two attempts to one webhook run at once.
      const requests = (await receiver.waitFor(4, at('/deliver'))).sort((x, y) => verified(x, secret).data.sequence - verified(y, secret).data.sequence);
      const feed = (await t.http.get('/oracle/markets/changes').set('x-api-key', apiKey)).body.data.changes;
      expect(requests.map((request) => verified(request, secret))).toEqual(
        feed.map((event: { sequence: number; type: string; occurred_at: string; market: unknown }) => ({
          type: event.type,
          timestamp: event.occurred_at,
          data: { sequence: event.sequence, market: event.market },
        })),
      );
      expect(requests.map((request) => request.headers['webhook-id'])).toEqual(feed.map((event: { id: string }) => event.id));
      expect(feed.map((event: { type: string }) => event.type)).toEqual(['market.created', 'market.resolved', 'dispute.filed', 'dispute.decided']);
      // As the document's `webhooks.marketChange` says (OpenAPI 3.1).
      const document = (await t.http.get('/docs-json')).body;
      expect(document.webhooks.marketChange.post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/WebhookEvent' });
      const schemas = new OpenApiValidator(document);
      for (const request of requests) expect(schemas.conforms('WebhookEvent', JSON.parse(request.body))).toBe(true);
      for (const request of requests) {
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers['user-agent']).toBe('settlement-oracle-webhooks/1');
        expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
        expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      }
      expect(await t.metrics()).toMatch(/^oracle_webhook_attempts_total\{result="delivered"\} [1-9]/m);
      const [listed] = (await master.get('/admin/partners/deliver/webhooks')).data.webhooks;
      expect(listed).toEqual(expect.objectContaining({ last_delivery: { at: ISO, http_status: 200, error: null }, pending: 0 }));
    });

    it('retries a failed attempt with the same webhook-id; the list shows the failure and the pending delivery meanwhile', async () => {
      await partner('retry');
      const { secret } = await register('retry', '/retry');
      let failures = 0;
      receiver.answer = (request) => (request.path === '/retry' && failures++ < 1 ? 500 : 200);
      try {
        await master.post('/admin/markets', { source: 'retry', slug: 'flaky' });
        const [first] = await receiver.waitFor(1, at('/retry'));
        // The retry comes 1 to 2 s after the failure (WEBHOOK_FIRST_RETRY_SECONDS=1).
        await eventually(async () =>
          expect((await master.get('/admin/partners/retry/webhooks')).data.webhooks[0]).toEqual(
            expect.objectContaining({ last_delivery: { at: ISO, http_status: 500, error: 'HTTP 500' }, pending: 1 }),
          ),
        );
        const [, second] = await receiver.waitFor(2, at('/retry'));
        expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
        expect(verified(second, secret)).toEqual(verified(first, secret));
        expect(second.body).toBe(first.body);
      } finally {
        receiver.answer = () => 200;
      }
      await eventually(async () => expect((await master.get('/admin/partners/retry/webhooks')).data.webhooks[0]).toEqual(expect.objectContaining({ last_delivery: { at: ISO, http_status: 200, error: null }, pending: 0 })));
    });

    it('gives a delivery up once its last attempt failed (its job\'s retries cut short here), without blocking the webhook', async () => {
      await partner('give-up');
      await register('give-up', '/give-up');
      receiver.answer = (request) => (request.path === '/give-up' ? 500 : 200);
      try {
        await master.post('/admin/markets', { source: 'give-up', slug: 'never-taken' });
        await receiver.waitFor(1, at('/give-up'));
        const [{ id }] = await t.dataSource.query(
          "SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.source = 'give-up'",
        );
        // The schedule spans 24 hours: this job's next failure is made its last. pg-boss fails a job by deleting and
        // inserting it again, and an update waiting on that row is lost: it is checked, and made again if need be.
        const job = "name = 'webhook-deliveries' AND data->>'delivery_id' = $1";
        await eventually(async () => {
          await t.dataSource.query(`UPDATE pgboss.job SET retry_limit = retry_count + 1 WHERE ${job} AND retry_limit > retry_count + 1`, [id]);
          const [{ left }] = await t.dataSource.query(`SELECT retry_limit - retry_count AS left FROM pgboss.job WHERE ${job}`, [id]);
          expect(left).toBeLessThanOrEqual(1);
        });
        // A retry 1-2 s away, then the given-up queue's poll (every 5 s): up to ~8 s before any load.
        await eventually(async () => {
          const [{ state }] = await t.dataSource.query('SELECT state FROM webhook_deliveries WHERE id = $1', [id]);
          expect(state).toBe('given_up');
        }, 20_000);
        expect((await master.get('/admin/partners/give-up/webhooks')).data.webhooks[0]).toEqual(
          expect.objectContaining({ last_delivery: { at: ISO, http_status: 500, error: 'HTTP 500' }, pending: 0 }),
        );
      } finally {
        receiver.answer = () => 200;
      }
      await master.post('/admin/markets', { source: 'give-up', slug: 'taken' });
      await receiver.until(() => receiver.received.some((request) => request.path === '/give-up' && JSON.parse(request.body).data.market.slug === 'taken'), 10_000);
    });

    it('after a rotation signs with both secrets, each verifying alone', async () => {
      await partner('rotate');
      const { webhook_id: id, secret: old } = await register('rotate', '/rotate');
      const rotated = await master.post(`/admin/partners/rotate/webhooks/${id}/rotate-secret`);
      expect(rotated).toEqual(ok({ webhook_id: id, secret: SECRET, previous_secret_expires_at: ISO }));
      // The time the old secret stops signing, as stored: 24 hours after the rotation.
      const [{ until, hours }] = await t.dataSource.query(
        "SELECT previous_secret_until AS until, extract(epoch FROM previous_secret_until - now()) / 3600 AS hours FROM webhooks WHERE id = $1",
        [id],
      );
      expect(Math.abs(Date.parse(rotated.data.previous_secret_expires_at) - (until as Date).getTime())).toBeLessThan(1);
      expect(Number(hours)).toBeGreaterThan(23.9);
      await master.post('/admin/markets', { source: 'rotate', slug: 'after-rotation' });
      const [request] = await receiver.waitFor(1, at('/rotate'));
      const signatures = request.headers['webhook-signature'].split(' ');
      expect(signatures).toHaveLength(2);
      for (const secret of [rotated.data.secret, old]) expect(verified(request, secret).type).toBe('market.created');
      for (const signature of signatures) {
        const alone = { ...request.headers, 'webhook-signature': signature };
        expect([rotated.data.secret, old].filter((secret) => isVerified(request.body, alone, secret))).toHaveLength(1);
      }
    });

    it('redelivers the source\'s events after a sequence to that one webhook, with their ids', async () => {
      await partner('replay');
      await partner('replay-other');
      const { webhook_id: id, secret } = await register('replay', '/replay');
      const { webhook_id: sibling } = await register('replay', '/replay-sibling');
      await resolvedMarket('replay', 'one');
      await master.post('/admin/markets', { source: 'replay-other', slug: 'not-theirs' });
      await master.post('/admin/markets', { source: 'replay', slug: 'two' });
      const firstRound = await receiver.waitFor(3, at('/replay'));
      const sequences = firstRound.map((request) => verified(request, secret).data.sequence).sort((x, y) => x - y);
      expect(await master.post(`/admin/partners/replay/webhooks/${id}/redeliver`, { after: 0 })).toEqual(ok({ queued: 3 }));
      const again = await receiver.waitFor(6, at('/replay'));
      expect(again.slice(3).map((request) => request.headers['webhook-id']).sort()).toEqual(firstRound.map((request) => request.headers['webhook-id']).sort());
      expect(await master.post(`/admin/partners/replay/webhooks/${id}/redeliver`, { after: sequences[1] })).toEqual(ok({ queued: 1 }));
      const [last] = (await receiver.waitFor(7, at('/replay'))).slice(6);
      expect(last.headers['webhook-id']).toBe(`evt_${sequences[2]}`);
      await receiver.waitFor(3, at('/replay-sibling'));
      await settle();
      expect(receiver.received.filter(at('/replay-sibling'))).toHaveLength(3);
      expect(sibling).toBe(id + 1);
    });

    it('sends nothing more to a deleted webhook and drops its pending deliveries', async () => {
      await partner('deleted');
      const { webhook_id: id } = await register('deleted', '/deleted');
      receiver.answer = (request) => (request.path === '/deleted' ? 503 : 200);
      try {
        await master.post('/admin/markets', { source: 'deleted', slug: 'first' });
        await receiver.waitFor(1, at('/deleted'));
        expect(await master.delete(`/admin/partners/deleted/webhooks/${id}`)).toEqual(ok({ webhook_id: id, deleted_at: ISO }));
        const seen = receiver.received.filter(at('/deleted')).length;
        await master.post('/admin/markets', { source: 'deleted', slug: 'second' });
        await settle(4_000);
        expect(receiver.received.filter(at('/deleted'))).toHaveLength(seen);
        const [{ state }] = await t.dataSource.query('SELECT state FROM webhook_deliveries WHERE webhook_id = $1', [id]);
        expect(state).toBe('dropped');
      } finally {
        receiver.answer = () => 200;
      }
    });
  });
});

function isVerified(body: string, headers: Record<string, string>, secret: string): boolean {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}
