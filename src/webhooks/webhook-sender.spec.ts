import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { publicOnlyLookup } from './url-policy';
import { postDelivery } from './webhook-sender';

describe('a delivery attempt (postDelivery)', () => {
  let server: http.Server;
  let base: string;
  const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' };
  const never = new AbortController().signal;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/ok') response.writeHead(204).end();
      else if (request.url === '/redirect') response.writeHead(302, { location: '/ok' }).end();
      else if (request.url === '/huge') response.writeHead(200).end(Buffer.alloc(8 * 1024 * 1024));
      else if (request.url === '/error') response.writeHead(500).end('no');
      // '/hang': never answered
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  it('succeeds on a 2xx, fails on anything else, follows no redirect', async () => {
    expect(await postDelivery(`${base}/ok`, '{}', headers, true, never)).toEqual({ delivered: true, httpStatus: 204, error: null });
    expect(await postDelivery(`${base}/error`, '{}', headers, true, never)).toEqual({ delivered: false, httpStatus: 500, error: 'HTTP 500' });
    expect(await postDelivery(`${base}/redirect`, '{}', headers, true, never)).toEqual({ delivered: false, httpStatus: 302, error: 'HTTP 302 (redirects are not followed)' });
  });

  it('reads at most 64 KiB of an answer', async () => {
    const started = performance.now();
    expect(await postDelivery(`${base}/huge`, '{}', headers, true, never)).toEqual({ delivered: true, httpStatus: 200, error: null });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('ends an attempt the instance stops', async () => {
    const stop = AbortSignal.timeout(200);
    expect(await postDelivery(`${base}/hang`, '{}', headers, true, stop)).toEqual({ delivered: false, httpStatus: null, error: 'the instance stopped during the attempt' });
  });

  it('refuses, as it connects, a host that resolves to a private address, and a private literal, unless allowed', async () => {
    const port = (server.address() as AddressInfo).port;
    expect(await postDelivery(`https://localhost:${port}/ok`, '{}', headers, false, never)).toEqual({
      delivered: false,
      httpStatus: null,
      error: expect.stringMatching(/^refused: localhost resolves to (127\.0\.0\.1|::1), not a public address \(loopback\)$/),
    });
    expect(await postDelivery(`https://127.0.0.1:${port}/ok`, '{}', headers, false, never)).toEqual({
      delivered: false,
      httpStatus: null,
      error: 'refused: the host is 127.0.0.1, not a public address (loopback)',
    });
    expect(await postDelivery(`${base}/ok`, '{}', headers, false, never)).toEqual({ delivered: false, httpStatus: null, error: 'refused: url must use https://' });
    expect(await postDelivery(`http://localhost:${port}/ok`, '{}', headers, true, never)).toEqual({ delivered: true, httpStatus: 204, error: null });
  });

  // [host as written in the URL, the address it is judged as, why]: the same forms the registration table refuses.
  const HOSTS: [string, string, string][] = [
    ['[::127.0.0.1]', '127.0.0.1', 'loopback'],
    ['[::7F00:1]', '127.0.0.1', 'loopback'],
    ['[::]', '::', 'unspecified'],
    ['[0:0:0:0:0:ffff:7f00:1]', '127.0.0.1', 'loopback'],
    ['[::169.254.169.254]', '169.254.169.254', 'cloud metadata'],
    ['[64:ff9b::a00:1]', '10.0.0.1', 'private'],
    ['[2002:c0a8:101::]', '192.168.1.1', 'private'],
    ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', '127.0.0.1', 'loopback'],
    ['2130706433', '127.0.0.1', 'loopback'],
    ['0x7f.1', '127.0.0.1', 'loopback'],
    ['0177.0.0.1', '127.0.0.1', 'loopback'],
    ['127.1', '127.0.0.1', 'loopback'],
    ['198.18.0.1', '198.18.0.1', 'reserved'],
    ['100.64.0.1', '100.64.0.1', 'carrier-grade NAT'],
  ];

  it.each(HOSTS)('refuses, as it connects, https://%s/ as %s (%s)', async (host, judged, kind) => {
    expect(await postDelivery(`https://${host}/ok`, '{}', headers, false, never)).toEqual({ delivered: false, httpStatus: null, error: `refused: the host is ${judged}, not a public address (${kind})` });
  });

  it.each(HOSTS.filter(([host]) => host.startsWith('[')))('refuses %s when a name resolves to it', async (host, judged, kind) => {
    const address = host.slice(1, -1);
    const error = await new Promise<Error | null>((done) => publicOnlyLookup(address, { family: 0 }, (failure) => done(failure)));
    expect(error?.message).toBe(`refused: ${address} resolves to ${judged}, not a public address (${kind})`);
  });
});
