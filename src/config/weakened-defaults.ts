import type { HttpConfig, WebhooksConfig } from './configuration';
import { isLoopback } from './listening';
import { trustProxy } from './trust-proxy';

/** The settings in force that weaken a default (contract §5), each with what it opens; empty when none does. */
export function weakenedDefaults(http: HttpConfig, webhooks: WebhooksConfig, zeroSetup: boolean): string[] {
  const trusted = trustProxy(http.trustProxy);
  return [
    ...(webhooks.allowPrivateUrls ? ['WEBHOOK_ALLOW_PRIVATE_URLS=true (webhooks may be http:// and reach this machine and private networks)'] : []),
    ...(http.corsOrigins.length > 0 ? [`CORS_ORIGINS=${http.corsOrigins.join(',')} (pages from these origins may call the API from browsers)`] : []),
    ...(trusted !== false && trusted !== 0 ? [`TRUST_PROXY=${http.trustProxy} (X-Forwarded-For names the client behind these proxies: rate limits and logs go by it)`] : []),
    ...(zeroSetup && (http.host === undefined || !isLoopback(http.host))
      ? [`HOST=${http.host} (the zero-setup server, with its demo keys, is reachable from other machines)`]
      : []),
  ];
}
