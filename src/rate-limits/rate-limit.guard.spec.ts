import { describe, expect, it } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import type { PresentedCredential } from '../common/request-context';
import { MemoryThrottlerStorage } from './memory-throttler-storage';
import { RateLimitGuard } from './rate-limit.guard';
import { RATE_LIMIT, type RateLimitKind } from './rate-limits';

/** The guard as RateLimitsModule makes it, with a limit of 2 a minute for every kind and a store the test can read. */
async function guard(): Promise<{ guard: RateLimitGuard; storage: MemoryThrottlerStorage }> {
  const storage = new MemoryThrottlerStorage();
  const module = await Test.createTestingModule({
    imports: [ThrottlerModule.forRoot({ throttlers: [{ name: 'default', ttl: 60_000, limit: () => 2 }], storage })],
    providers: [RateLimitGuard],
  }).compile();
  await module.init();
  expect(module.get(ThrottlerStorage)).toBe(storage);
  return { guard: module.get(RateLimitGuard), storage };
}

/** A request to a route of `kind` (none: no @RateLimit), from 10.0.0.1, with `credential` read by its guard. */
function contextOf(kind: RateLimitKind | undefined, credential?: PresentedCredential, headers: Record<string, unknown> = {}): ExecutionContext {
  const route = class Route {};
  if (kind) Reflect.defineMetadata(RATE_LIMIT, kind, route);
  const req = { headers: {}, ip: '10.0.0.1', socket: { remoteAddress: '10.0.0.1' }, context: { requestId: 'r', credential } };
  const res = { setHeader: (name: string, value: unknown) => (headers[name] = value) };
  const http = { getRequest: () => req, getResponse: () => res };
  return { switchToHttp: () => http, getClass: () => route, getHandler: () => function read() {}, getType: () => 'http' } as unknown as ExecutionContext;
}

describe('RateLimitGuard', () => {
  it('counts against the route kind\'s limit, says so in the X-RateLimit headers, and refuses past it with the budget stated', async () => {
    const { guard: rateLimits } = await guard();
    const headers: Record<string, unknown> = {};
    await expect(rateLimits.canActivate(contextOf('public', undefined, headers))).resolves.toBe(true);
    expect(headers).toEqual({ 'X-RateLimit-Limit': 2, 'X-RateLimit-Remaining': 1, 'X-RateLimit-Reset': 60 });
    await rateLimits.canActivate(contextOf('public'));
    const refused: Record<string, unknown> = {};
    await expect(rateLimits.canActivate(contextOf('public', undefined, refused))).rejects.toThrow('Too Many Requests');
    expect(refused).toEqual({ 'Retry-After': 60, 'X-RateLimit-Limit': 2, 'X-RateLimit-Remaining': 0, 'X-RateLimit-Reset': 60 });
  });

  it('keys a public read by client IP and a credential route by its kind and credential hash, one budget per kind', async () => {
    const { guard: rateLimits, storage } = await guard();
    await rateLimits.canActivate(contextOf('public'));
    await rateLimits.canActivate(contextOf('dispute', { secret: 'k', hash: 'h1' }));
    await rateLimits.canActivate(contextOf('admin', { secret: 'k', hash: 'h1' }));
    await rateLimits.canActivate(contextOf('admin', { secret: 'k', hash: 'h1' }));
    await expect(rateLimits.canActivate(contextOf('admin', { secret: 'k', hash: 'h1' }))).rejects.toThrow('Too Many Requests');
    await expect(rateLimits.canActivate(contextOf('changes', { secret: 'k', hash: 'h1' }))).resolves.toBe(true);
    // Read by one more hit: each key holds the one its request counted.
    expect((await storage.increment('default:ip:10.0.0.1', 60_000, 2, 0, 'default')).totalHits).toBe(2);
    expect((await storage.increment('default:key:h1', 60_000, 2, 0, 'default')).totalHits).toBe(2);
  });

  it('skips routes without @RateLimit and credential routes sent no credential (their guard answers 4010 or 4012)', async () => {
    const { guard: rateLimits, storage } = await guard();
    for (let i = 0; i < 5; i++) {
      await expect(rateLimits.canActivate(contextOf(undefined))).resolves.toBe(true);
      await expect(rateLimits.canActivate(contextOf('dispute'))).resolves.toBe(true);
    }
    expect(storage.size).toBe(0);
  });
});
