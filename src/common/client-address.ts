import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { Request } from 'express';
import type { ServiceRequest } from './request-context';

/** The per-client limits' key: req.ip as `trust proxy` resolves it, parsed, never header text; IPv6 by its /64; a non-address (relayed text) counts as the peer. */
export function clientOf(req: Request): string {
  const context = (req as Partial<ServiceRequest>).context;
  if (context?.client !== undefined) return context.client;
  const client = clientAddress(req.ip ?? '') ?? clientAddress(req.socket.remoteAddress ?? '') ?? 'unknown';
  if (context) context.client = client;
  return client;
}

/** A dual-stack listener's form of an IPv4 client, matched here to skip ipaddr.js's costly IPv6 parse. */
const IPV4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** Longer than any address with its zone: not remembered (a 12 KB "address" would hold 12 KB per entry). */
const MAX_REMEMBERED_LENGTH = 64;

/** Each address's canonical form ('' for none), parsed once: ipaddr.js's parse is costly on the hot path. */
const CANONICAL = new LRUCache<string, string>({ max: 10_000 });

/** The canonical form of an IP address (IPv6 by its /64), or undefined when `ip` is none. */
export function clientAddress(ip: string): string | undefined {
  if (ip.length > MAX_REMEMBERED_LENGTH) return canonicalAddress(ip);
  let canonical = CANONICAL.get(ip);
  if (canonical === undefined) CANONICAL.set(ip, (canonical = canonicalAddress(ip) ?? ''));
  return canonical || undefined;
}

function canonicalAddress(ip: string): string | undefined {
  const ipv4 = IPV4_MAPPED.exec(ip)?.[1] ?? ip;
  if (ipaddr.IPv4.isValidFourPartDecimal(ipv4)) return ipaddr.IPv4.parse(ipv4).toString();
  if (!ip.includes(':') || !ipaddr.IPv6.isValid(ip)) return undefined;
  const address = ipaddr.IPv6.parse(ip);
  return address.isIPv4MappedAddress()
    ? address.toIPv4Address().toString()
    : `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/64`).toString()}/64`;
}
