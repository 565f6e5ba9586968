import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import type { Request } from 'express';
import type { ServiceRequest } from './request-context';

/** The per-client limits' key: req.ip as `trust proxy` resolves it, parsed, never header text; IPv6 by its /64; a non-address (relayed text) counts as the peer. */
export function clientOf(req: Request): string {
  const context = (req as Partial<ServiceRequest>).context;
  if (context?.client !== undefined) return context.client;
  const relayed = forwardedForWithinBounds(req) ? clientAddress(req.ip ?? '') : undefined;
  const client = relayed ?? clientAddress(req.socket.remoteAddress ?? '') ?? 'unknown';
  if (context) context.client = client;
  return client;
}

/** X-Forwarded-For is read this far at most: past it the request is refused (4000) and its client is the peer, so walking it costs a bounded amount. */
export const FORWARDED_FOR_LIMITS = { hops: 20, characters: 1_512 };

/** Whether X-Forwarded-For (its fields as Node joins them) is within FORWARDED_FOR_LIMITS, found in at most `characters` steps. */
export function forwardedForWithinBounds(req: Request): boolean {
  const header = req.headers['x-forwarded-for'];
  if (header === undefined) return true;
  if (header.length > FORWARDED_FOR_LIMITS.characters) return false;
  let hops = 1;
  for (let at = header.indexOf(','); at !== -1; at = header.indexOf(',', at + 1)) if (++hops > FORWARDED_FOR_LIMITS.hops) return false;
  return true;
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
