import { describe, expect, it } from '@jest/globals';
import { checkWebhookUrl, refusedAddress } from './url-policy';

describe('webhook URL policy', () => {
  // [address, what it is judged as, why refused (null: allowed)]
  const TABLE: [string, string, string | null][] = [
    ['93.184.215.14', '93.184.215.14', null],
    ['2606:2800:21f:cb07:6820:80da:af6b:8b2c', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', null],
    ['::ffff:93.184.215.14', '93.184.215.14', null],
    ['64:ff9b::5db8:d70e', '93.184.215.14', null],
    ['2002:5db8:d70e::1', '93.184.215.14', null],
    ['2001:0:4136:e378:8000:63bf:a247:28f1', '93.184.215.14', null],
    ['127.0.0.1', '127.0.0.1', 'loopback'],
    ['10.1.2.3', '10.1.2.3', 'private'],
    ['172.16.0.1', '172.16.0.1', 'private'],
    ['192.168.1.1', '192.168.1.1', 'private'],
    ['169.254.169.254', '169.254.169.254', 'cloud metadata'],
    ['169.254.1.1', '169.254.1.1', 'link-local'],
    ['100.64.0.1', '100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', '0.0.0.0', 'unspecified'],
    ['255.255.255.255', '255.255.255.255', 'broadcast'],
    ['224.0.0.1', '224.0.0.1', 'multicast'],
    ['198.18.0.1', '198.18.0.1', 'reserved'],
    ['192.0.2.1', '192.0.2.1', 'reserved'],
    ['203.0.113.9', '203.0.113.9', 'reserved'],
    ['240.0.0.1', '240.0.0.1', 'reserved'],
    ['192.0.0.8', '192.0.0.8', 'reserved'],
    ['::', '::', 'unspecified'],
    ['::1', '::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', '::1', 'loopback'],
    ['fe80::1', 'fe80::1', 'link-local'],
    ['FE80::1', 'fe80::1', 'link-local'],
    ['fe80::1%eth0', 'fe80::1%eth0', 'link-local'],
    ['fd00::1', 'fd00::1', 'unique local'],
    ['fd00:ec2::254', 'fd00:ec2::254', 'cloud metadata'],
    ['fec0::1', 'fec0::1', 'site-local'],
    ['ff02::1', 'ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', '127.0.0.1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', '10.0.0.1', 'private'],
    ['::ffff:0:a00:1', '10.0.0.1', 'private'],
    ['::127.0.0.1', '127.0.0.1', 'loopback'],
    ['::7f00:1', '127.0.0.1', 'loopback'],
    ['::169.254.169.254', '169.254.169.254', 'cloud metadata'],
    ['::a00:1', '10.0.0.1', 'private'],
    ['::c0a8:101', '192.168.1.1', 'private'],
    ['::2', '0.0.0.2', 'unspecified'],
    ['64:ff9b::7f00:1', '127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'cloud metadata'],
    ['64:ff9b:1::a00:1', '64:ff9b:1::a00:1', 'NAT64 local-use'],
    ['2002:7f00:1::', '127.0.0.1', 'loopback'],
    ['2002:a00:1::1', '10.0.0.1', 'private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', '127.0.0.1', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '192.0.2.45', 'reserved'],
    ['2001:db8::1', '2001:db8::1', 'reserved'],
    ['2001:2::1', '2001:2::1', 'benchmarking'],
    ['100::1', '100::1', 'discard'],
    ['4000::1', '4000::1', 'not global unicast'],
    ['localhost', 'localhost', 'not an IP address'],
  ];

  it.each(TABLE)('judges %s as %s: %s', (address, judged, kind) => {
    expect(refusedAddress(address)).toEqual(kind === null ? null : { address: judged, kind });
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
