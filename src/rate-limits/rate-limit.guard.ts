import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Response } from 'express';
import { clientOf } from '../common/client-address';
import type { ServiceRequest } from '../common/request-context';
import { type RateLimitKind, rateLimitKindOf } from './rate-limits';

const CREDENTIAL_PREFIX: Record<Exclude<RateLimitKind, 'public'>, string> = { dispute: 'key', changes: 'feed', admin: 'admin' };

/** @nestjs/throttler's guard, through its hooks only; the limit per route kind is its throttler's (rateLimitOptions). */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** Routes without @RateLimit, and requests lacking the credential their route needs: their guard answers them 4010 or 4012 without a lookup. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    const kind = rateLimitKindOf(context);
    return kind === undefined || (kind !== 'public' && context.switchToHttp().getRequest<ServiceRequest>().context.credential === undefined);
  }

  /** The credential's hash, read once by CredentialGate; on public reads the client IP (as `trust proxy` sees it). */
  protected override async getTracker(req: ServiceRequest): Promise<string> {
    return req.context.credential?.hash ?? `ip:${clientOf(req)}`;
  }

  // One budget per tracker across the routes of its kind (an admin credential's 600 a minute cover every admin route).
  protected override generateKey(context: ExecutionContext, tracker: string, name: string): string {
    const kind = rateLimitKindOf(context)!;
    return kind === 'public' ? `${name}:${tracker}` : `${name}:${CREDENTIAL_PREFIX[kind]}:${tracker}`;
  }

  /** Its refusal states the budget too (X-RateLimit-Limit, -Remaining 0, -Reset as Retry-After), as answers within it do. */
  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const response = context.switchToHttp().getResponse<Response>();
    response.setHeader(`${this.headerPrefix}-Limit`, detail.limit);
    response.setHeader(`${this.headerPrefix}-Remaining`, 0);
    response.setHeader(`${this.headerPrefix}-Reset`, detail.timeToBlockExpire);
    return super.throwThrottlingException(context, detail);
  }
}
