import { type ExecutionContext, Injectable } from '@nestjs/common';
import type { PresentedCredential, ServiceRequest } from '../common/request-context';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import { FailedAuthLimiter } from './failed-auth-limiter';

/** What ApiKeyGuard and AdminGuard do before their lookup, in the contract's order. */
@Injectable()
export class CredentialGate {
  constructor(
    private readonly failedAuth: FailedAuthLimiter,
    private readonly rateLimits: RateLimitGuard,
  ) {}

  // The credential (with its one hash) goes on the request: the rate limit counts against that hash. An address over its
  // failed-authentication budget is refused before its credential takes a rate-limit window.
  async admit(context: ExecutionContext, credential: PresentedCredential | undefined): Promise<ServiceRequest> {
    const request = context.switchToHttp().getRequest<ServiceRequest>();
    request.context.credential = credential;
    if (credential?.secret !== undefined) this.failedAuth.assertAllowed(request);
    await this.rateLimits.canActivate(context);
    return request;
  }

  /** A credential that named no one: counted against its address. */
  refused(request: ServiceRequest): Promise<void> {
    return this.failedAuth.recordFailure(request);
  }
}
