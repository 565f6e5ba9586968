import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { peakRssMb, RSS_CAP_MB } from './support/hostile';
import { HttpClient } from './support/http-client';
import { type OneServer, startOneServer } from './support/one-server';
import { RedisServer } from './support/redis-server';
import { disputeBody } from './support/seed';
import { ServerProcess } from './support/server-process';

/** The address the proxy in front appends: the client's real one. */
const REAL_CLIENT = '198.51.100.7';
const AUTH_FAILURES = 30; // RATE_LIMIT_AUTH_FAILURES_PER_MINUTE's default
const PUBLIC_PER_MINUTE = 200;
const FAILED_AUTH_REFUSAL = { code: 4290, msg: 'too many requests', detail: 'too many failed authentications from this address' };

const randomIp = () => [...randomBytes(4)].join('.');
/** ~12 KB of X-Forwarded-For a client wrote: random addresses and text that is none. */
const bigForwardedFor = () => Array.from({ length: 850 }, (_, i) => (i % 3 === 0 ? randomBytes(6).toString('hex') : randomIp())).join(', ');

/**
 * Contract §10: client addresses come from the network or from proxies that were named. With
 * each TRUST_PROXY setting, a client that writes its own X-Forwarded-For behind a proxy that
 * appends the real address dodges no per-client limit, and 12 KB of it is refused before it is
 * counted, so it holds nothing in memory or in Redis.
 */
describe('faults: client addresses behind proxies', () => {
  let first: OneServer;
  let redis: RedisServer;
  let redisClient: Redis;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
    redisClient = new Redis(redis.url);
    first = await startOneServer({ name: 'proxy-false', perPartner: 1, env: env('false') });
    servers.push(first.server);
  });

  afterAll(async () => {
    for (const server of servers.slice(1)) await server.stop();
    await first?.server.stop();
    await first?.postgres.destroy();
    redisClient?.disconnect();
    await redis?.kill();
  });

  function env(trustProxy: string): Record<string, string> {
    return {
      REDIS_URL: redis.url,
      RATE_LIMIT_REDIS_PREFIX: `proxy-${trustProxy.replace(/\W/g, '')}`,
      RATE_LIMIT_PUBLIC_PER_MINUTE: String(PUBLIC_PER_MINUTE),
      TRUST_PROXY: trustProxy,
    };
  }

  async function serverWith(trustProxy: string): Promise<ServerProcess> {
    if (trustProxy === 'false') return first.server;
    const server = await ServerProcess.start({ databaseUrl: first.database.url, name: `proxy-${trustProxy}`, env: env(trustProxy) });
    servers.push(server);
    return server;
  }

  async function redisBytes(): Promise<number> {
    return Number(/used_memory:(\d+)/.exec(await redisClient.info('memory'))?.[1]);
  }

  it('refuses TRUST_PROXY=true at start, saying why', async () => {
    await expect(ServerProcess.start({ databaseUrl: first.database.url, name: 'proxy-true', env: env('true') })).rejects.toThrow(
      /TRUST_PROXY="true": true would let any client choose its own address/,
    );
  });

  for (const trustProxy of ['false', '1', 'loopback']) {
    describe(`TRUST_PROXY=${trustProxy}`, () => {
      it('counts failed authentications against the real client, whatever X-Forwarded-For it writes', async () => {
        const server = await serverWith(trustProxy);
        const market = first.markets[0];
        // One client connection: the proxy's (on loopback), which appends the real client's address.
        const viaProxy = new HttpClient(server.http.baseUrl, '127.0.0.9');
        const codes: unknown[] = [];
        for (let i = 0; i < AUTH_FAILURES + 10; i++) {
          const answer = await viaProxy.request('POST', '/oracle/markets/dispute/submit', {
            headers: { 'x-api-key': `sok_${randomBytes(16).toString('hex')}`, 'x-forwarded-for': `${randomIp()}, ${REAL_CLIENT}` },
            body: disputeBody(market.id),
          });
          codes.push(answer.body.code);
          if (answer.body.code === 4290) expect(answer.body).toEqual(FAILED_AUTH_REFUSAL);
        }
        viaProxy.close();
        expect(codes.slice(0, AUTH_FAILURES)).toEqual(Array(AUTH_FAILURES).fill(4011));
        expect(codes.slice(AUTH_FAILURES)).toEqual(Array(10).fill(4290));
      });

      it('refuses 12 KB X-Forwarded-For values 4000 before counting them: no key, memory bounded', async () => {
        const server = await serverWith(trustProxy);
        const market = first.markets[0];
        const viaProxy = new HttpClient(server.http.baseUrl, '127.0.0.10');
        const redisBefore = await redisBytes();
        const codes = new Map<unknown, number>();
        const reads = PUBLIC_PER_MINUTE + 300;
        for (let i = 0; i < reads; i++) {
          const realEntry = i % 2 === 0 ? REAL_CLIENT : randomBytes(8).toString('hex');
          const answer = await viaProxy.request('GET', `/oracle/markets/public?slug=${market.slug}&source=${market.source}`, {
            headers: { 'x-forwarded-for': `${bigForwardedFor()}, ${realEntry}` },
          });
          codes.set(answer.body.code, (codes.get(answer.body.code) ?? 0) + 1);
        }
        viaProxy.close();
        expect(codes.get(4000)).toBe(reads);
        const keys = await redisClient.keys('*');
        for (const key of keys) expect(key.length).toBeLessThan(200);
        expect((await redisBytes()) - redisBefore).toBeLessThan(256 * 1024);
        expect(server.running).toBe(true);
        expect(peakRssMb(server.pid)).toBeLessThan(RSS_CAP_MB);
      });
    });
  }
});
