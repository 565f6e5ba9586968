import { describe, expect, it } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ThrottlerOptions } from '@nestjs/throttler';
import { MemoryThrottlerStorage } from './memory-throttler-storage';
import { RateLimitGuard } from './rate-limit.guard';

const guardOf = (throttlers: ThrottlerOptions[]) => new RateLimitGuard({ throttlers }, new MemoryThrottlerStorage(), new Reflector());

/** Just what handleRequest reads of a context: the request, the response it sets its headers on, and the route (the default key). */
function contextOf(headers: Record<string, string | number>): ExecutionContext {
  const res = { setHeader: (name: string, value: string | number) => (headers[name] = value) };
  const http = { getRequest: () => ({ headers: {} }), getResponse: () => res };
  return { switchToHttp: () => http, getClass: () => class Route {}, getHandler: () => function read() {} } as unknown as ExecutionContext;
}

describe('RateLimitGuard', () => {
  const throttler: ThrottlerOptions = {
    name: 'default',
    ttl: 60_000,
    limit: () => 2,
    getTracker: () => 'ip:1',
    generateKey: (_context, tracker, name) => `${name}:${tracker}`,
  };

  it('counts against the limit its throttler gives the route, and says so in the X-RateLimit headers', async () => {
    const guard = guardOf([throttler]);
    await guard.onModuleInit();
    const headers: Record<string, string | number> = {};
    await expect(guard.canActivate(contextOf(headers))).resolves.toBe(true);
    expect(headers).toEqual({ 'X-RateLimit-Limit': 2, 'X-RateLimit-Remaining': 1, 'X-RateLimit-Reset': 60 });
    await expect(guard.canActivate(contextOf({}))).resolves.toBe(true);
    await expect(guard.canActivate(contextOf({}))).rejects.toThrow('Too Many Requests');
  });

  it('skips what its throttler skips', async () => {
    const guard = guardOf([{ ...throttler, limit: () => 0, skipIf: () => true }]);
    await guard.onModuleInit();
    await expect(guard.canActivate(contextOf({}))).resolves.toBe(true);
  });

  it("takes the module's tracker and key where its throttler has none", async () => {
    const { getTracker: _tracker, generateKey: _key, ...bare } = throttler;
    const guard = new RateLimitGuard({ throttlers: [bare], getTracker: () => 'ip:2' }, new MemoryThrottlerStorage(), new Reflector());
    await guard.onModuleInit();
    const headers: Record<string, string | number> = {};
    await expect(guard.canActivate(contextOf(headers))).resolves.toBe(true);
    expect(headers['X-RateLimit-Remaining']).toBe(1);
  });

  it('refuses to start with throttlers it would not run as ThrottlerGuard does', async () => {
    await expect(guardOf([{ ...throttler, limit: 2 }]).onModuleInit()).rejects.toThrow('one throttler');
    await expect(guardOf([throttler, { ...throttler, name: 'burst' }]).onModuleInit()).rejects.toThrow('one throttler');
  });
});
