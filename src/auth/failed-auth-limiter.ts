import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { clientOf } from '../common/client-address';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { rateLimitConfig, type RateLimitConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';
import { RATE_LIMIT_WINDOW_MS } from '../rate-limits/rate-limits';

const MAX_BLOCKED_ADDRESSES = 100_000;

// Past RATE_LIMIT_AUTH_FAILURES_PER_MINUTE, a client IP gets 4290 before any lookup: a guessed key is neither a
// fresh rate budget nor a database query. Failures count in the rate-limit store (Redis when set); the refusal
// reads only this instance's memory.
@Injectable()
export class FailedAuthLimiter {
  private readonly limit: number;
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    @Inject(rateLimitConfig.KEY) config: RateLimitConfig,
    @Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage,
    private readonly metrics: MetricsService,
  ) {
    this.limit = config.authFailuresPerMinute;
  }

  assertAllowed(req: Request): void {
    const address = clientOf(req);
    const until = this.blockedUntil.get(address);
    if (until === undefined) return;
    const left = until - Date.now();
    if (left <= 0) {
      this.blockedUntil.delete(address);
      return;
    }
    this.metrics.authFailuresRefused.inc();
    throw new ApiError(ErrorCatalogue.TOO_MANY_REQUESTS, 'too many failed authentications from this address', Math.ceil(left / 1000));
  }

  /** The failure that reaches the limit already refuses the address: the store's own block starts only past it. */
  async recordFailure(req: Request): Promise<void> {
    const address = clientOf(req);
    const record = await this.storage.increment(`ip:${address}`, RATE_LIMIT_WINDOW_MS, this.limit, RATE_LIMIT_WINDOW_MS, 'auth-failures');
    if (record.totalHits < this.limit) return;
    if (this.blockedUntil.size >= MAX_BLOCKED_ADDRESSES) this.blockedUntil.delete(this.blockedUntil.keys().next().value!);
    const seconds = record.isBlocked ? record.timeToBlockExpire : record.timeToExpire;
    this.blockedUntil.set(address, Date.now() + seconds * 1000);
  }
}
