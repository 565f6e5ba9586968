/** Codes are part of the partner contract (shared/spec/contract.md §2): never reuse one for another meaning. */
export const ErrorCatalogue = {
  INVALID_REQUEST: { code: 4000, msg: 'invalid request' },
  MALFORMED_JSON: { code: 4001, msg: 'malformed JSON body' },
  SLUG_REQUIRED: { code: 4100, msg: 'slug is required' },
  SOURCE_REQUIRED: { code: 4101, msg: 'source is required' },
  CHANGES_CURSOR_EXPIRED: { code: 4102, msg: 'changes cursor expired' },
  API_KEY_REQUIRED: { code: 4010, msg: 'api key is required' },
  API_KEY_INVALID: { code: 4011, msg: 'invalid api key' },
  ADMIN_CREDENTIALS_INVALID: { code: 4012, msg: 'invalid admin credentials' },
  FORBIDDEN: { code: 4031, msg: 'forbidden' },
  MARKET_OTHER_SOURCE: { code: 4030, msg: 'market belongs to another source' },
  MARKET_NOT_FOUND: { code: 4040, msg: 'market not found' },
  DISPUTE_NOT_FOUND: { code: 4041, msg: 'dispute not found' },
  PARTNER_NOT_FOUND: { code: 4042, msg: 'partner not found' },
  REVIEWER_NOT_FOUND: { code: 4043, msg: 'reviewer not found' },
  ROUTE_NOT_FOUND: { code: 4044, msg: 'not found' },
  API_KEY_NOT_FOUND: { code: 4045, msg: 'api key not found' },
  WEBHOOK_NOT_FOUND: { code: 4046, msg: 'webhook not found' },
  MARKET_NOT_RESOLVED: { code: 4090, msg: 'market is not resolved' },
  MARKET_ALREADY_DISPUTED: { code: 4091, msg: 'market already has a dispute' },
  DISPUTE_ALREADY_DECIDED: { code: 4092, msg: 'dispute already decided' },
  ALREADY_EXISTS: { code: 4093, msg: 'already exists' },
  MARKET_NOT_MONITORING: { code: 4094, msg: 'market is not monitoring' },
  IDEMPOTENCY_KEY_REUSED: { code: 4095, msg: 'idempotency key reused with a different request' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { code: 4096, msg: 'request with this idempotency key in progress' },
  PAYLOAD_TOO_LARGE: { code: 4130, msg: 'payload too large' },
  TOO_MANY_REQUESTS: { code: 4290, msg: 'too many requests' },
  INTERNAL: { code: 5000, msg: 'internal error' },
  SERVICE_UNAVAILABLE: { code: 5030, msg: 'service unavailable' },
  SERVER_BUSY: { code: 5031, msg: 'server busy' },
} as const;

export type ErrorName = keyof typeof ErrorCatalogue;
export type ErrorEntry = (typeof ErrorCatalogue)[ErrorName];

/** An outcome of the request, not a bug: no stack is captured (nothing reads it, and every refusal would pay for it). */
export class ApiError extends Error {
  readonly code: number;
  readonly detail: string;

  constructor(
    readonly entry: ErrorEntry,
    detail?: string,
    /** Sent as Retry-After; the "later" codes default to 1 (EnvelopeExceptionFilter). */
    readonly retryAfterSeconds?: number,
  ) {
    const { stackTraceLimit } = Error;
    Error.stackTraceLimit = 0;
    super(entry.msg);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.code = entry.code;
    this.detail = detail ?? entry.msg;
  }
}
