import { IsOptional, Matches } from 'class-validator';
import { IntVariable } from './variables';

/** The variables of the per-minute budgets and their Redis store. */
export class RateLimitVariables {
  /** Shared rate-limit counts; unset: per instance. Set but empty is refused: each instance would allow the whole budget. */
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// or rediss:// URL (unset it for counts per instance)' })
  REDIS_URL?: string;

  /** Namespace of the rate-limit keys in Redis (instances sharing a budget share it). */
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1-64 letters, digits, ":", "_" or "-"' })
  RATE_LIMIT_REDIS_PREFIX = 'oracle';

  @IntVariable(1)
  RATE_LIMIT_PUBLIC_PER_MINUTE = 6000;

  @IntVariable(1)
  RATE_LIMIT_DISPUTE_PER_MINUTE = 300;

  /** Changes feed reads per API key (a long poll counts once). */
  @IntVariable(1)
  RATE_LIMIT_CHANGES_PER_MINUTE = 600;

  @IntVariable(1)
  RATE_LIMIT_ADMIN_PER_MINUTE = 600;

  /** Failed authentications (4011, 4012) per client IP and minute; past it, 4290 before any lookup. */
  @IntVariable(1)
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE = 30;

  /** How long a rate-limit command may take in Redis before the instance counts in memory instead. */
  @IntVariable(10, 10000)
  REDIS_COMMAND_TIMEOUT_MS = 200;
}
