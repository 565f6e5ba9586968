import { describe, expect, it } from '@jest/globals';
import type { HttpConfig, WebhooksConfig } from './configuration';
import { isLoopback, listenAddress } from './listening';
import { weakenedDefaults } from './weakened-defaults';

const http = (settings: Partial<HttpConfig>) => ({ host: '127.0.0.1', trustProxy: 'false', corsOrigins: [], ...settings }) as HttpConfig;
const webhooks = (allowPrivateUrls: boolean) => ({ allowPrivateUrls }) as WebhooksConfig;

describe('the settings that weaken a default (contract §5)', () => {
  it('names none with the defaults, in either mode', () => {
    expect(weakenedDefaults(http({}), webhooks(false), true)).toEqual([]);
    expect(weakenedDefaults(http({ host: undefined }), webhooks(false), false)).toEqual([]);
    expect(weakenedDefaults(http({ trustProxy: '0' }), webhooks(false), true)).toEqual([]);
  });

  it('names each one in force, with what it opens', () => {
    const named = weakenedDefaults(http({ host: '0.0.0.0', trustProxy: 'loopback', corsOrigins: ['https://a.example', 'http://localhost:8080'] }), webhooks(true), true);
    expect(named).toEqual([
      'WEBHOOK_ALLOW_PRIVATE_URLS=true (webhooks may be http:// and reach this machine and private networks)',
      'CORS_ORIGINS=https://a.example,http://localhost:8080 (pages from these origins may call the API from browsers)',
      'TRUST_PROXY=loopback (X-Forwarded-For names the client behind these proxies: rate limits and logs go by it)',
      'HOST=0.0.0.0 (the zero-setup server, with its demo keys, is reachable from other machines)',
    ]);
  });

  it('counts a listening address against the zero-setup mode only, and loopback ones never', () => {
    for (const host of ['127.0.0.1', '127.8.0.1', '::1', '0:0:0:0:0:0:0:1', 'localhost']) expect(weakenedDefaults(http({ host }), webhooks(false), true)).toEqual([]);
    for (const host of ['::', '192.0.2.2', 'oracle.internal']) expect(weakenedDefaults(http({ host }), webhooks(false), true)).toHaveLength(1);
    expect(weakenedDefaults(http({ host: '0.0.0.0' }), webhooks(false), false)).toEqual([]);
  });
});

describe('listening addresses', () => {
  it('tells loopback from the rest', () => {
    expect(['127.0.0.1', '::1', 'LOCALHOST', '::0:1'].map(isLoopback)).toEqual([true, true, true, true]);
    expect(['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', '::2', 'example.com'].map(isLoopback)).toEqual([false, false, false, false, false, false]);
  });

  it('says where a listener is, as the log shows it', () => {
    expect([listenAddress('127.0.0.1', 3000), listenAddress('::1', 3000), listenAddress(undefined, 9464)]).toEqual([
      '127.0.0.1:3000',
      '[::1]:3000',
      'port 9464 (every interface)',
    ]);
  });
});
