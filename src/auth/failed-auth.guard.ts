import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { bearerOf, requiredRole } from './admin.guard';
import { needsPartnerKey, partnerKeyOf } from './api-key.guard';
import { FailedAuthLimiter } from './failed-auth-limiter';

/**
 * The first guard: a request with credentials, from an address over its failed-authentication
 * budget, is refused 4290 here, before the rate limits count its credential (each guess would
 * take a rate-limit window of its own) and before any lookup. A request without credentials
 * goes on, to be answered 4010 or 4012 as from any address.
 */
@Injectable()
export class FailedAuthGuard implements CanActivate {
  constructor(private readonly failedAuth: FailedAuthLimiter) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const sendsCredentials = needsPartnerKey(context) ? partnerKeyOf(request) : requiredRole(context) && bearerOf(request);
    if (sendsCredentials) this.failedAuth.assertAllowed(request, http.getResponse<Response>());
    return true;
  }
}
