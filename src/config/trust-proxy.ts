import { compile as compileTrustedProxies } from 'proxy-addr';

/**
 * TRUST_PROXY as Express's `trust proxy` takes it: false, a hop count (digits alone, at most two
 * of them), or else a comma-separated list of addresses, subnets and named ranges. Never `true`
 * (refused at start): Express would take the left-most X-Forwarded-For entry, the client's own.
 */
export function trustProxy(value: string): false | number | string {
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/**
 * A TRUST_PROXY that Express can use as trustProxy reads it: a hop count of one or two digits
 * (more digits are not an address in proxy-addr's one-number form, "100" for 0.0.0.100), or a
 * list that proxy-addr compiles as Express compiles it (items trimmed), which throws on what it
 * cannot read (an empty item, a prefix or netmask it refuses).
 */
export function isTrustProxySetting(value: string): boolean {
  if (value === 'true') return false;
  const trust = trustProxy(value);
  if (trust === false) return true;
  if (typeof trust === 'number') return value.length <= 2;
  try {
    compileTrustedProxies(trust.split(',').map((item) => item.trim()));
    return true;
  } catch {
    return false;
  }
}
