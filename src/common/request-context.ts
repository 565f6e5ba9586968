import type { Request } from 'express';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import type { AdminActor } from '../auth/reviewers.service';

/** What the service attaches to an Express request as it passes through. */
export interface RequestContext {
  /** The id echoed in `x-request-id` and written to the request's log line. */
  requestId: string;
  /** A body-parser failure, held back so that authentication is checked before the body. */
  bodyError?: unknown;
  /** The partner authenticated by `x-api-key`, on partner routes. */
  partner?: AuthenticatedPartner;
  /** The back-office caller authenticated by `Authorization: Bearer`, on admin routes. */
  actor?: AdminActor;
  /** The client the per-client limits count it against (clientOf), once asked. */
  client?: string;
}

export type ServiceRequest = Request & { context: RequestContext };
