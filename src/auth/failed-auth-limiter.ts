import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { Request } from 'express';
import { clientOf } from '../common/client-address';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { rateLimitConfig, type RateLimitConfig } from '../config/configuration';
import { MetricsService } from '../observability/metrics.service';

const WINDOW_MS = 60_000;
const MAX_BLOCKED_ADDRESSES = 100_000;

/**
 * Failed authentications (unknown or revoked partner keys and admin credentials) per client IP:
 * past RATE_LIMIT_AUTH_FAILURES_PER_MINUTE, the address is refused with 4290 for the rest of
 * the window, before any lookup. Without it a random key got a fresh rate budget each time,
 * and every guess was a database query. Failures are counted in the rate-limit store (shared
 * through Redis when there is one); the refusal itself reads only this instance's memory.
 */
@Injectable()
export class FailedAuthLimiter {
  private readonly limit: number;
  /** Addresses over the limit, and until when (ms). */
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    @Inject(rateLimitConfig.KEY) config: RateLimitConfig,
    @Inject(ThrottlerStorage) private readonly storage: ThrottlerStorage,
    private readonly metrics: MetricsService,
  ) {
    this.limit = config.authFailuresPerMinute;
  }

  /** 4290 for a client IP over its failed-authentication budget, until its window ends. */
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

  /**
   * Counts a failed authentication of the request's client IP; the failure that reaches the
   * limit refuses the address for the rest of its window (the store's block starts only past it).
   */
  async recordFailure(req: Request): Promise<void> {
    const address = clientOf(req);
    const record = await this.storage.increment(`ip:${address}`, WINDOW_MS, this.limit, WINDOW_MS, 'auth-failures');
    if (record.totalHits < this.limit) return;
    if (this.blockedUntil.size >= MAX_BLOCKED_ADDRESSES) this.blockedUntil.delete(this.blockedUntil.keys().next().value!);
    const seconds = record.isBlocked ? record.timeToBlockExpire : record.timeToExpire;
    this.blockedUntil.set(address, Date.now() + seconds * 1000);
  }
}
