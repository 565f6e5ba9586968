import type { Request } from 'express';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import type { AdminActor } from '../auth/reviewers.service';

/** What the service attaches to an Express request as it passes through. */
export interface RequestContext {
  /** The id echoed in `x-request-id` and written to the request's log line. */
  requestId: string;
  /** Its place among the requests in progress: taken at once, or for a request with a body once its body is read. */
  place?: InFlightPlace;
  /** The partner authenticated by `x-api-key`, on partner routes. */
  partner?: AuthenticatedPartner;
  /** The back-office caller authenticated by `Authorization: Bearer`, on admin routes. */
  actor?: AdminActor;
  /** The client the per-client limits count it against (clientOf), once asked. */
  client?: string;
}

export type ServiceRequest = Request & { context: RequestContext };

/** A request's place among those in progress (MAX_REQUESTS_IN_FLIGHT). */
export interface InFlightPlace {
  /** Takes it, or throws 5031 if none is free. */
  take(): void;
  /** Gives it back before the answer: the request waits without working (a long poll). */
  leave(): void;
}
