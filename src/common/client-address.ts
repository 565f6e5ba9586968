import ipaddr from 'ipaddr.js';
import type { Request } from 'express';
import type { ServiceRequest } from './request-context';

/**
 * The key of the per-client limits: req.ip as `trust proxy` resolves it, parsed, never header text.
 * IPv6 counts by its /64 (one host's usual block). A non-address (relayed client text) counts as the peer.
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
