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

  // [URL, the address its host is judged as, why]: every way of writing an inside address, IPv4 embedded in IPv6 included.
  const INSIDE: [string, string, string][] = [
    ['https://[::127.0.0.1]/hook', '127.0.0.1', 'loopback'],
    ['https://[::7F00:1]/hook', '127.0.0.1', 'loopback'],
    ['https://[::169.254.169.254]/hook', '169.254.169.254', 'cloud metadata'],
    ['https://[::a00:1]/hook', '10.0.0.1', 'private'],
    ['https://[::c0a8:101]/hook', '192.168.1.1', 'private'],
    ['https://[::]/hook', '::', 'unspecified'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/hook', '127.0.0.1', 'loopback'],
    ['https://[::ffff:0:a00:1]/hook', '10.0.0.1', 'private'],
    ['https://[64:ff9b::7f00:1]/hook', '127.0.0.1', 'loopback'],
    ['https://[64:ff9b:1::a00:1]/hook', '64:ff9b:1::a00:1', 'NAT64 local-use'],
    ['https://[2002:a9fe:a9fe::1]/hook', '169.254.169.254', 'cloud metadata'],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', '127.0.0.1', 'loopback'],
    ['https://[FD00::1]/hook', 'fd00::1', 'unique local'],
    ['https://[ff02::1]/hook', 'ff02::1', 'multicast'],
    ['https://[2001:db8::1]/hook', '2001:db8::1', 'reserved'],
    ['https://[4000::1]/hook', '4000::1', 'not global unicast'],
    ['https://2130706433/hook', '127.0.0.1', 'loopback'],
    ['https://0x7f.1/hook', '127.0.0.1', 'loopback'],
    ['https://0177.0.0.1/hook', '127.0.0.1', 'loopback'],
    ['https://127.1/hook', '127.0.0.1', 'loopback'],
    ['https://0/hook', '0.0.0.0', 'unspecified'],
    ['https://198.18.0.1/hook', '198.18.0.1', 'reserved'],
    ['https://192.0.2.1/hook', '192.0.2.1', 'reserved'],
    ['https://100.64.0.1/hook', '100.64.0.1', 'carrier-grade NAT'],
    ['https://224.0.0.1/hook', '224.0.0.1', 'multicast'],
    ['https://255.255.255.255/hook', '255.255.255.255', 'broadcast'],
  ];

  it.each(INSIDE)('refuses %s as %s (%s)', async (url, judged, kind) => {
    expect(await register(url)).toEqual(invalid(`url's host is ${judged}, not a public address (${kind})`));
  });

  it('refuses an IPv6 zone id, which no URL may carry', async () => {
    expect(await register('https://[fe80::1%25eth0]/hook')).toEqual(invalid('url must be an absolute URL'));
  });

  it('takes an https URL whose host is a public address', async () => {
    for (const url of ['https://93.184.215.14/hook', 'https://[::ffff:93.184.215.14]/hook', 'https://[64:ff9b::5db8:d70e]/hook', 'https://[2002:5db8:d70e::1]/hook']) {
      expect((await register(url)).code).toBe(0);
    }
  });
});
