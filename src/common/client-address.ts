import ipaddr from 'ipaddr.js';
import type { Request } from 'express';

/**
 * The client a request counts against in the per-client limits (rate limits, failed
 * authentications, the shares of the body and answer budgets): its IP as Express's
 * `trust proxy` reads it; an IPv6 client by its /64, the block one host is usually given (each
 * address of it would otherwise have budgets of its own), an IPv4-mapped one as IPv4.
 */
export function clientOf(req: Request): string {
  return clientAddress(req.ip ?? '');
}

export function clientAddress(ip: string): string {
  if (!ip.includes(':') || !ipaddr.IPv6.isValid(ip)) return ip;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}
