import { describe, expect, it } from '@jest/globals';
import { checkWebhookUrl, refusedAddress } from './url-policy';

describe('webhook URL policy', () => {
  it('allows public unicast addresses only, IPv4-mapped IPv6 judged as IPv4', () => {
    for (const address of ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']) expect(refusedAddress(address)).toBeNull();
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1']) {
      expect(refusedAddress(address)).not.toBeNull();
    }
    expect(refusedAddress('169.254.169.254')).toEqual({ address: '169.254.169.254', kind: 'cloud metadata' });
    expect(refusedAddress('::ffff:127.0.0.1')).toEqual({ address: '127.0.0.1', kind: 'loopback' });
    expect(refusedAddress('fe80::1')).toEqual({ address: 'fe80::1', kind: 'link-local' });
  });

  it('refuses at registration other schemes, credentials, private literals and names resolving inside', async () => {
    await expect(checkWebhookUrl('http://93.184.215.14/hook', false)).rejects.toThrow('url must use https://');
    await expect(checkWebhookUrl('https://user:pw@93.184.215.14/hook', false)).rejects.toThrow('url must not carry a user name or password');
    await expect(checkWebhookUrl('https://[::1]/hook', false)).rejects.toThrow("url's host is ::1, not a public address (loopback)");
    await expect(checkWebhookUrl('https://0x7f000001/hook', false)).rejects.toThrow("url's host is 127.0.0.1, not a public address (loopback)");
    await expect(checkWebhookUrl('https://localhost/hook', false)).rejects.toThrow(/^url's host localhost resolves to (127\.0\.0\.1|::1), not a public address \(loopback\)$/);
    await expect(checkWebhookUrl('https://no-such-host.invalid/hook', false)).rejects.toThrow("url's host no-such-host.invalid does not resolve");
    await expect(checkWebhookUrl('not a url', false)).rejects.toThrow('url must be an absolute URL');
    await expect(checkWebhookUrl('https://93.184.215.14/hook', false)).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('http://localhost:8080/hook', true)).resolves.toBeInstanceOf(URL);
  });
});
