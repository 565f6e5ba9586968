import { compile as compileTrustedProxies } from 'proxy-addr';

/** Never `true` (refused at start): Express would then take the left-most X-Forwarded-For entry, the client's own. */
export function trustProxy(value: string): false | number | string {
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** A hop count of one or two digits (more are not an address in proxy-addr's one-number form, "100" for 0.0.0.100), or a list proxy-addr compiles as Express does. */
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
