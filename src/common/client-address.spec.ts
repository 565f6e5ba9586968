import { describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { clientAddress, forwardedForWithinBounds } from './client-address';

describe('clientAddress', () => {
  it('is an IPv4 address in its four-part decimal form, an IPv4-mapped one as IPv4', () => {
    expect(clientAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('::FFFF:cb00:7107')).toBe('203.0.113.7');
  });

  it('is an IPv6 client by its /64, however the address is written', () => {
    expect(clientAddress('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:DB8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientAddress('::1')).toBe('::/64');
    expect(clientAddress('fe80::1%eth0')).toBe('fe80::/64'); // a zone names the server's interface, not the client
  });

  it('is nothing for what is not an address: text, other IPv4 notations, ranges', () => {
    for (const text of ['', 'not:an:address', 'x'.repeat(12_000), '0x7f.1', '127.1', '010.0.0.1', '1.2.3.4/8', ' 1.2.3.4']) {
      expect({ text: text.slice(0, 20), address: clientAddress(text) }).toEqual({ text: text.slice(0, 20), address: undefined });
    }
  });
});

describe('forwardedForWithinBounds', () => {
  const withHeader = (value?: string) => ({ headers: value === undefined ? {} : { 'x-forwarded-for': value } }) as unknown as Request;
  const hops = (count: number, address = '::1') => Array(count).fill(address).join(', ');

  it('takes no header, and up to 20 addresses in up to 1,512 characters', () => {
    expect(forwardedForWithinBounds(withHeader())).toBe(true);
    expect(forwardedForWithinBounds(withHeader(hops(1, '203.0.113.7')))).toBe(true);
    expect(forwardedForWithinBounds(withHeader(hops(20)))).toBe(true);
    expect(forwardedForWithinBounds(withHeader(hops(20, '2001:db8:1:2:3:4:5:6').padEnd(1_512, 'x')))).toBe(true);
  });

  it('refuses a 21st address, a 1,513th character, and thousands of either without reading them all', () => {
    expect(forwardedForWithinBounds(withHeader(hops(21)))).toBe(false);
    expect(forwardedForWithinBounds(withHeader(','.repeat(20)))).toBe(false);
    expect(forwardedForWithinBounds(withHeader('1.2.3.4'.padEnd(1_513, 'x')))).toBe(false);
    expect(forwardedForWithinBounds(withHeader(hops(2_900)))).toBe(false);
    expect(forwardedForWithinBounds(withHeader(','.repeat(1_000_000)))).toBe(false);
  });
});
