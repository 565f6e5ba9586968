import { describe, expect, it, jest } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { ServiceRequest } from '../common/request-context';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import { ApiKeyGuard } from './api-key.guard';
import { CredentialGate } from './credential-gate';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { hashKey } from './key-hashing';
import { PartnerKeysService } from './partner-keys.service';

const PARTNER = { partnerId: '1', source: 'acme', keyId: '7' };

/** ApiKeyGuard and the real CredentialGate, with the limiter, the rate limit and the key lookup faked; `steps` records their order. */
async function guardWith({ known = true, overBudget = false, rateLimited = false } = {}) {
  const steps: string[] = [];
  const failedAuth = {
    assertAllowed: jest.fn(() => {
      steps.push('failed-auth');
      if (overBudget) throw Object.assign(new Error('over budget'), { code: 4290 });
    }),
    recordFailure: jest.fn(async () => void steps.push('failure recorded')),
  };
  const rateLimits = {
    canActivate: jest.fn(async (context: ExecutionContext) => {
      steps.push(`rate limit ${context.switchToHttp().getRequest<ServiceRequest>().context.credential?.hash ?? 'none'}`);
      if (rateLimited) throw Object.assign(new Error('Too Many Requests'), { code: 4290 });
      return true;
    }),
  };
  const partnerKeys = { authenticate: jest.fn(async (hash: string) => (steps.push(`lookup ${hash}`), known ? PARTNER : null)) };
  const module = await Test.createTestingModule({
    providers: [
      ApiKeyGuard,
      CredentialGate,
      { provide: FailedAuthLimiter, useValue: failedAuth },
      { provide: RateLimitGuard, useValue: rateLimits },
      { provide: PartnerKeysService, useValue: partnerKeys },
    ],
  }).compile();
  return { guard: module.get(ApiKeyGuard), steps, failedAuth };
}

function requestWith(headers: Record<string, string>): { context: ExecutionContext; request: ServiceRequest } {
  const request = { header: (name: string) => headers[name.toLowerCase()], context: { requestId: 'r' } } as unknown as ServiceRequest;
  const context = { switchToHttp: () => ({ getRequest: () => request }) } as unknown as ExecutionContext;
  return { context, request };
}

describe('ApiKeyGuard', () => {
  it("resolves the partner of the x-api-key: its one hash goes to the rate limit and the lookup, the partner to the request", async () => {
    const { guard, steps } = await guardWith();
    const { context, request } = requestWith({ 'x-api-key': ' sok_key ' });
    await expect(guard.canActivate(context)).resolves.toBe(true);
    const hash = hashKey('sok_key');
    expect(steps).toEqual(['failed-auth', `rate limit ${hash}`, `lookup ${hash}`]);
    expect(request.context.credential).toEqual({ secret: 'sok_key', hash });
    expect(request.context.partner).toEqual(PARTNER);
  });

  it('answers 4010 without a key, after the rate limit (which skips it) and without a lookup or a failure counted', async () => {
    const { guard, steps } = await guardWith();
    for (const headers of [{}, { 'x-api-key': '   ' }] as Record<string, string>[]) {
      steps.length = 0;
      await expect(guard.canActivate(requestWith(headers).context)).rejects.toMatchObject({ code: 4010 });
      expect(steps).toEqual(['rate limit none']);
    }
  });

  it('answers 4011 for an unknown key, and counts the failure against the address', async () => {
    const { guard, steps } = await guardWith({ known: false });
    const { context, request } = requestWith({ 'x-api-key': 'sok_guess' });
    await expect(guard.canActivate(context)).rejects.toMatchObject({ code: 4011 });
    expect(steps.at(-1)).toBe('failure recorded');
    expect(request.context.partner).toBeUndefined();
  });

  it('refuses an address over its failed-authentication budget before the rate limit, and a key over its rate limit before the lookup', async () => {
    const over = await guardWith({ overBudget: true });
    await expect(over.guard.canActivate(requestWith({ 'x-api-key': 'sok_key' }).context)).rejects.toMatchObject({ code: 4290 });
    expect(over.steps).toEqual(['failed-auth']);
    const limited = await guardWith({ rateLimited: true });
    await expect(limited.guard.canActivate(requestWith({ 'x-api-key': 'sok_key' }).context)).rejects.toMatchObject({ code: 4290 });
    expect(limited.steps).toEqual(['failed-auth', `rate limit ${hashKey('sok_key')}`]);
  });
});
