import { describe, expect, it } from '@jest/globals';
import { clientAddress } from './client-address';

describe('clientAddress', () => {
  it('is an IPv4 address as it is, an IPv4-mapped one as IPv4', () => {
    expect(clientAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is an IPv6 client by its /64: every address of it counts as one client', () => {
    expect(clientAddress('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientAddress('::1')).toBe('::/64');
  });

  it('leaves what is not an address as it is', () => {
    expect(clientAddress('')).toBe('');
    expect(clientAddress('not:an:address')).toBe('not:an:address');
  });
});
