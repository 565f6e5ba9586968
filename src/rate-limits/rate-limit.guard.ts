import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Response } from 'express';

/**
 * @nestjs/throttler's guard, whose refusal also states the budget: X-RateLimit-Limit,
 * X-RateLimit-Remaining (0) and X-RateLimit-Reset (the seconds until the window lets the client
 * in again, as Retry-After), as every answer within the budget does.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const response = context.switchToHttp().getResponse<Response>();
    response.setHeader(`${this.headerPrefix}-Limit`, detail.limit);
    response.setHeader(`${this.headerPrefix}-Remaining`, 0);
    response.setHeader(`${this.headerPrefix}-Reset`, detail.timeToBlockExpire);
    return super.throwThrottlingException(context, detail);
  }
}
