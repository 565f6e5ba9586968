import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';

/** What the service attaches to an Express request as it passes through (ApiKeyGuard and AdminGuard add who called). */
export interface RequestContext {
  /** The id echoed in `x-request-id` and written to the request's log line. */
  requestId: string;
  /** Its place among the requests in progress: taken at once, or for a request with a body once its body is read. */
  place?: InFlightPlace;
  /** What it presented for its route's access, read once by its credential guard; undefined when it sent nothing. */
  credential?: PresentedCredential;
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
  /** Takes it again once woken (after leave()): waits its turn, long polls holding at most half the places; never 5031. */
  resume(): Promise<void>;
}

export interface PresentedCredential {
  /** The key or token in the form its route takes (`x-api-key`, `Authorization: Bearer`), else undefined. */
  secret?: string;
  /** SHA-256 of what was sent (a malformed Authorization as it is): the rate-limit budget it counts against. */
  hash: string;
}

// A caller's id is echoed only when it is short and plain, so it cannot forge log lines.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's context, made once, as the HTTP server takes the request in (ExpressAdapterWithDeadlines). */
export function attachRequestContext(req: Request, res: Response): void {
  const context: RequestContext = { requestId: requestIdOf(req.headers['x-request-id']), client: undefined };
  (req as ServiceRequest).context = context;
  res.setHeader('x-request-id', context.requestId);
}

/** The caller's `x-request-id` when it is sane, else a new UUID. */
export function requestIdOf(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
