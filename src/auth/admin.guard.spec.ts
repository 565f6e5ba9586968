import { describe, expect, it, jest } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { ServiceRequest } from '../common/request-context';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import { Roles } from './access.decorators';
import { AdminGuard } from './admin.guard';
import { CredentialGate } from './credential-gate';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { hashKey } from './key-hashing';
import { type AdminActor, ReviewersService } from './reviewers.service';

const ACCOUNTS: Record<string, AdminActor> = {
  [hashKey('soa_admin')]: { id: '1', name: 'ann', role: 'admin' },
  [hashKey('soa_reviewer')]: { id: '2', name: 'bob', role: 'reviewer' },
};

class Routes {
  @Roles('admin', 'reviewer')
  readQueue() {}

  @Roles('admin')
  createMarket() {}

  undeclared() {}
}

async function guardWith() {
  const failedAuth = { assertAllowed: jest.fn(), recordFailure: jest.fn(async () => undefined) };
  const rateLimits = { canActivate: jest.fn(async () => true) };
  const reviewers = { authenticate: jest.fn(async (hash: string) => ACCOUNTS[hash] ?? null) };
  const module = await Test.createTestingModule({
    providers: [
      AdminGuard,
      CredentialGate,
      { provide: FailedAuthLimiter, useValue: failedAuth },
      { provide: RateLimitGuard, useValue: rateLimits },
      { provide: ReviewersService, useValue: reviewers },
    ],
  }).compile();
  return { guard: module.get(AdminGuard), failedAuth, rateLimits, reviewers };
}

function call(route: keyof Routes, authorization?: string): { context: ExecutionContext; request: ServiceRequest } {
  const request = { header: (name: string) => (name === 'authorization' ? authorization : undefined), context: { requestId: 'r' } } as unknown as ServiceRequest;
  const context = {
    switchToHttp: () => ({ getRequest: () => request }),
    getHandler: () => Routes.prototype[route],
    getClass: () => Routes,
  } as unknown as ExecutionContext;
  return { context, request };
}

describe('AdminGuard', () => {
  it("admits an actor whose role is among the route's @Roles, and hands it to the request", async () => {
    const { guard } = await guardWith();
    for (const [route, key, name] of [['readQueue', 'soa_reviewer', 'bob'], ['readQueue', 'soa_admin', 'ann'], ['createMarket', 'soa_admin', 'ann']] as const) {
      const { context, request } = call(route, `Bearer ${key}`);
      await expect(guard.canActivate(context)).resolves.toBe(true);
      expect(request.context.actor?.name).toBe(name);
      expect(request.context.credential).toEqual({ secret: key, hash: hashKey(key) });
    }
  });

  it("answers 4031 to a reviewer on an admin's route", async () => {
    const { guard } = await guardWith();
    const { context, request } = call('createMarket', 'Bearer soa_reviewer');
    await expect(guard.canActivate(context)).rejects.toMatchObject({ code: 4031 });
    expect(request.context.actor).toBeUndefined();
  });

  it('answers 4012 without credentials (no rate-limit window), with a malformed one (counted by its hash, no lookup) and with an unknown one (a failure counted)', async () => {
    const none = await guardWith();
    await expect(none.guard.canActivate(call('readQueue').context)).rejects.toMatchObject({ code: 4012 });
    expect(none.failedAuth.assertAllowed).not.toHaveBeenCalled();

    const malformed = await guardWith();
    const { context, request } = call('readQueue', 'Basic abc');
    await expect(malformed.guard.canActivate(context)).rejects.toMatchObject({ code: 4012 });
    expect(request.context.credential).toEqual({ secret: undefined, hash: hashKey('Basic abc') });
    expect(malformed.rateLimits.canActivate).toHaveBeenCalled();
    expect(malformed.reviewers.authenticate).not.toHaveBeenCalled();

    const unknown = await guardWith();
    await expect(unknown.guard.canActivate(call('readQueue', 'Bearer soa_guess').context)).rejects.toMatchObject({ code: 4012 });
    expect(unknown.failedAuth.recordFailure).toHaveBeenCalledTimes(1);
  });

  it('refuses to run on a route that declares no @Roles: a wiring error, not an open route', async () => {
    const { guard } = await guardWith();
    await expect(guard.canActivate(call('undeclared', 'Bearer soa_admin').context)).rejects.toThrow('without @Roles');
  });
});
