import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** How long a registration waits for DNS to answer about a webhook's host. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** The cloud providers' instance metadata services, named as such in refusals. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);
/** ipaddr.js's names of ranges, as a refusal says them. */
const RANGE_NAMES: Record<string, string> = { linkLocal: 'link-local', uniqueLocal: 'unique local', carrierGradeNat: 'carrier-grade NAT', deprecatedSiteLocal: 'site-local', rfc6052: 'NAT64 local-use' };

/** An address a webhook may not connect to, and what it is. */
export interface RefusedAddress {
  address: string;
  kind: string;
}

type Address = ipaddr.IPv4 | ipaddr.IPv6;
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** IANA's global unicast block; the rest of IPv6 is unassigned or special, so refused. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The IPv4 address an IPv6 one stands for (RFC 4291 mapped and compatible, NAT64, 6to4, Teredo's client), else itself. */
export function embeddedIPv4(address: Address): Address {
  if (address.kind() === 'ipv4') return address;
  const v6 = address as ipaddr.IPv6;
  const [, w1, w2, , , , w6, w7] = v6.parts;
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || v6.match(NAT64)) return ipv4Of(w6, w7);
  if (range === '6to4') return ipv4Of(w1, w2);
  if (range === 'teredo') return ipv4Of(w6 ^ 0xffff, w7 ^ 0xffff);
  // :: and ::1 keep their IPv6 names; both are refused either way.
  if (v6.match(IPV4_COMPATIBLE) && range !== 'unspecified' && range !== 'loopback') return ipv4Of(w6, w7);
  return v6;
}

/** Why a webhook may not connect to `address`, or null when it (or the IPv4 it embeds) is globally routable unicast. */
export function refusedAddress(address: string): RefusedAddress | null {
  if (!ipaddr.isValid(address)) return { address, kind: 'not an IP address' };
  const parsed = embeddedIPv4(ipaddr.parse(address));
  const text = parsed.toString();
  if (METADATA_ADDRESSES.has(text)) return { address: text, kind: 'cloud metadata' };
  const range = parsed.range();
  if (range !== 'unicast') return { address: text, kind: RANGE_NAMES[range] ?? range };
  if (parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return { address: text, kind: 'not global unicast' };
  return null;
}

/** "10.0.0.1, not a public address (private)". */
const notPublic = (refused: RefusedAddress) => `${refused.address}, not a public address (${refused.kind})`;

/** A URL a webhook is refused, with why; the address checks are lifted by WEBHOOK_ALLOW_PRIVATE_URLS. */
export class RefusedUrl extends Error {}

/** `url` as a webhook may use it: https (http too when private URLs are allowed), no credentials. */
export function parseWebhookUrl(url: string, allowPrivate: boolean): URL {
  if (!URL.canParse(url)) throw new RefusedUrl('url must be an absolute URL');
  const parsed = new URL(url);
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) throw new RefusedUrl(`url must use ${allowPrivate ? 'https:// or http://' : 'https://'}`);
  if (parsed.username || parsed.password) throw new RefusedUrl('url must not carry a user name or password');
  return parsed;
}

/** The host of `url` without the brackets of an IPv6 literal. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** At registration: the scheme, and unless private URLs are allowed every address the host resolves to now. */
export async function checkWebhookUrl(url: string, allowPrivate: boolean): Promise<URL> {
  const parsed = parseWebhookUrl(url, allowPrivate);
  if (allowPrivate) return parsed;
  const host = hostOf(parsed);
  const addresses = isIP(host) ? [host] : await resolve(host);
  for (const address of addresses) {
    const refused = refusedAddress(address);
    if (refused) throw new RefusedUrl(isIP(host) ? `url's host is ${notPublic(refused)}` : `url's host ${host} resolves to ${notPublic(refused)}`);
  }
  return parsed;
}

function resolve(host: string): Promise<string[]> {
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new RefusedUrl(`url's host ${host} does not resolve (no answer within ${RESOLVE_TIMEOUT_MS / 1000} s)`)), RESOLVE_TIMEOUT_MS);
    dnsLookup(host, { all: true }, (error, addresses) => {
      clearTimeout(timer);
      if (error || addresses.length === 0) fail(new RefusedUrl(`url's host ${host} does not resolve`));
      else done(addresses.map((entry) => entry.address));
    });
  });
}

/** Checked again as each delivery connects: a name that pointed elsewhere at registration cannot reach inside. */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.map((entry) => refusedAddress(entry.address)).find((reason) => reason !== null);
    if (refused) return callback(Object.assign(new Error(`refused: ${hostname} resolves to ${notPublic(refused)}`), { code: 'EADDRNOTPUBLIC' }), '', 0);
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

/** A delivery's check of a literal address in its URL (a connection to an IP literal looks nothing up). */
export function refusedLiteralHost(url: URL): string | null {
  const host = hostOf(url);
  if (!isIP(host)) return null;
  const refused = refusedAddress(host);
  return refused ? `refused: the host is ${notPublic(refused)}` : null;
}
