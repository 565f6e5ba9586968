import ipaddr from 'ipaddr.js';
import type { Request } from 'express';
import type { ServiceRequest } from './request-context';

/**
 * The client a request counts against in the per-client limits (rate limits, failed
 * authentications, the shares of the body and answer budgets): its IP as Express's
 * `trust proxy` reads it; an IPv6 client by its /64, the block one host is usually given (each
 * address of it would otherwise have budgets of its own), an IPv4-mapped one as IPv4.
 */
export function clientOf(req: Request): string {
  const context = (req as Partial<ServiceRequest>).context;
  if (context?.client !== undefined) return context.client;
  const client = clientAddress(req.ip ?? '');
  if (context) context.client = client;
  return client;
}

const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

export function clientAddress(ip: string): string {
  if (!ip.includes(':')) return ip;
  // How Node names an IPv4 client of a server listening on '::': without parsing it.
  const mapped = IPV4_MAPPED.exec(ip);
  if (mapped) return mapped[1];
  if (!ipaddr.IPv6.isValid(ip)) return ip;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}
