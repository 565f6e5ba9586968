import ipaddr from 'ipaddr.js';
import type { Request } from 'express';
import type { ServiceRequest } from './request-context';

/**
 * The client a request counts against in the per-client limits (rate limits, failed
 * authentications, the shares of the body and answer budgets): its IP as Express's
 * `trust proxy` reads it (the right-most address that is not a trusted proxy), parsed and
 * canonical, never header text. An IPv6 client counts by its /64, the block one host is usually
 * given; an IPv4-mapped one as IPv4. An entry that is not an address (a proxy passed on what a
 * client wrote) counts as the connection's peer, the last hop that is known.
 */
export function clientOf(req: Request): string {
  const context = (req as Partial<ServiceRequest>).context;
  if (context?.client !== undefined) return context.client;
  const client = clientAddress(req.ip ?? '') ?? clientAddress(req.socket.remoteAddress ?? '') ?? 'unknown';
  if (context) context.client = client;
  return client;
}

/** The canonical form of an IP address (IPv6 by its /64), or undefined when `ip` is none. */
export function clientAddress(ip: string): string | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip).toString();
  if (!ip.includes(':') || !ipaddr.IPv6.isValid(ip)) return undefined;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}
