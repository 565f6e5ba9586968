import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestApp, type TestApp } from './support/test-app';

const MASTER = 'test-master-key-0123456789abcdef';
const invalid = (detail: string) => ({ code: 4000, msg: 'invalid request', detail });

/** Webhook URLs as production takes them (WEBHOOK_ALLOW_PRIVATE_URLS unset): https to public addresses only (contract §7). */
describe('webhook URLs with private addresses refused', () => {
  let t: TestApp;
  const register = (url: string) =>
    t.http.post('/admin/partners/acme/webhooks').set('authorization', `Bearer ${MASTER}`).send({ url }).then((response) => response.body);

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_MASTER_KEY: MASTER });
    expect((await t.http.post('/admin/partners').set('authorization', `Bearer ${MASTER}`).send({ source: 'acme', name: 'Acme' })).body.code).toBe(0);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses, with the reason, other schemes and hosts that are or resolve to loopback, private, link-local or metadata addresses', async () => {
    expect(await register('http://93.184.215.14/hook')).toEqual(invalid('url must use https://'));
    expect(await register('https://localhost/hook')).toEqual(invalid(expect.stringMatching(/^url's host localhost resolves to (127\.0\.0\.1|::1), not a public address \(loopback\)$/) as unknown as string));
    expect(await register('https://127.0.0.1:8443/hook')).toEqual(invalid("url's host is 127.0.0.1, not a public address (loopback)"));
    expect(await register('https://[::ffff:10.0.0.1]/hook')).toEqual(invalid("url's host is 10.0.0.1, not a public address (private)"));
    expect(await register('https://192.168.0.10/hook')).toEqual(invalid("url's host is 192.168.0.10, not a public address (private)"));
    expect(await register('https://169.254.169.254/latest/meta-data')).toEqual(invalid("url's host is 169.254.169.254, not a public address (cloud metadata)"));
    expect(await register('https://[fe80::1]/hook')).toEqual(invalid("url's host is fe80::1, not a public address (link-local)"));
    expect(await register('https://no-such-host.invalid/hook')).toEqual(invalid("url's host no-such-host.invalid does not resolve"));
    expect(await register('https://user:pw@93.184.215.14/hook')).toEqual(invalid('url must not carry a user name or password'));
    const listed = await t.http.get('/admin/partners/acme/webhooks').set('authorization', `Bearer ${MASTER}`);
    expect(listed.body).toEqual({ code: 0, msg: 'success', data: { webhooks: [], private_urls_allowed: false } });
  });

  it('takes an https URL whose host is a public address', async () => {
    expect((await register('https://93.184.215.14/hook')).code).toBe(0);
  });
});
