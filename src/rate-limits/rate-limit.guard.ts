import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import type { Response } from 'express';

/** Its refusal states the budget too (X-RateLimit-Limit, -Remaining 0, -Reset as Retry-After), as answers within it do. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  override async onModuleInit(): Promise<void> {
    await super.onModuleInit();
    const [throttler, ...others] = this.throttlers;
    if (others.length > 0 || typeof throttler?.limit !== 'function' || typeof throttler.ttl !== 'number' || typeof (throttler.blockDuration ?? 0) !== 'number') {
      throw new Error('RateLimitGuard runs one throttler, with a limit function and a ttl and block duration in milliseconds (rateLimitOptions)');
    }
  }

  // The one throttler of rateLimitOptions, straight to handleRequest: no route declares @Throttle or @SkipThrottle,
  // whose metadata ThrottlerGuard's own canActivate reads (six lookups, four awaits) on every request.
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const [throttler] = this.throttlers;
    // As ThrottlerGuard: the throttler's own options, else the module's (onModuleInit fills its tracker and key).
    const common = this.commonOptions;
    if ((throttler.skipIf ?? common.skipIf)?.(context)) return true;
    const limit = throttler.limit as (context: ExecutionContext) => number;
    const ttl = throttler.ttl as number;
    return this.handleRequest({
      context,
      throttler,
      limit: limit(context),
      ttl,
      blockDuration: throttler.blockDuration === undefined ? ttl : (throttler.blockDuration as number),
      getTracker: throttler.getTracker ?? common.getTracker!,
      generateKey: throttler.generateKey ?? common.generateKey!,
    });
  }

  protected override async throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const response = context.switchToHttp().getResponse<Response>();
    response.setHeader(`${this.headerPrefix}-Limit`, detail.limit);
    response.setHeader(`${this.headerPrefix}-Remaining`, 0);
    response.setHeader(`${this.headerPrefix}-Reset`, detail.timeToBlockExpire);
    return super.throwThrottlingException(context, detail);
  }
}
