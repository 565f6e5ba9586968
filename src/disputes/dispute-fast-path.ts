import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface.js';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Counter } from 'prom-client';
import type { AuthenticatedPartner } from '../auth/partner-keys.service';
import { PartnerKeysService } from '../auth/partner-keys.service';
import { ApiError, ErrorCatalogue, errorEnvelope } from '../common/error-catalogue';
import { toApiError } from '../common/error-mapping';
import {
  type FastPath,
  logRequest,
  logUnexpectedError,
  type RateLimitState,
  type RequestLog,
  requestLog,
  secondsSince,
  sendEnvelope,
  type TakenRequest,
  watchClientLeaving,
} from '../common/fast-path';
import {
  BODY_LIMIT_BYTES,
  handOverReadBody,
  parseJsonBody,
  type ReadBody,
  requestIdOf,
} from '../common/request-context.middleware';
import { recordedSecurityHeaders } from '../common/security-headers';
import type { Environment } from '../config/environment';
import { MetricsService } from '../observability/metrics.service';
import { disputeTracker, RATE_LIMIT_WINDOW_MS, rateLimitKey } from '../observability/rate-limits';
import { DisputesController } from './disputes.controller';
import { DisputesService } from './disputes.service';
import { plainSubmission } from './submit-dispute.dto';

/** The route, as the metrics and the log line name it; the fast path takes exactly this URL. */
const ROUTE = '/oracle/markets/dispute/submit';
/** The Content-Types taken (lower case, spaces removed): the parser reads both as UTF-8 JSON. */
const JSON_CONTENT_TYPES = new Set(['application/json', 'application/json;charset=utf-8']);
/** The throttler and the handler whose rate-limit counter the route uses (ThrottlerGuard's key). */
const THROTTLER = 'default';
const HANDLER = DisputesController.prototype.submitDispute.name;

/** What the fast path needs from the application, resolved once. */
export interface DisputeFastPathParts {
  partnerKeys: Pick<PartnerKeysService, 'touch'>;
  disputes: Pick<DisputesService, 'submitDisputeByKey'>;
  storage: ThrottlerStorage;
  metrics: MetricsService;
  /** Submissions per API key per window on the dispute budget. */
  limit: number;
  requestLog: RequestLog;
}

/** One submission taken. */
interface Taken extends TakenRequest {
  apiKey: string;
  /** When its body had been read (the latency metric's start, as RequestMetricsMiddleware's). */
  read?: bigint;
  /** Once counted: what the X-RateLimit-* headers say. */
  rate?: RateLimitState;
}

/**
 * `POST /oracle/markets/dispute/submit` with a plain, valid body, answered before Express and
 * Nest see the request. Filing a dispute is one statement (DisputesService.submitDisputeByKey); the
 * framework's layers around it (Express's router, helmet, Nest's guards, pipe, interceptor and
 * filter, class-transformer and class-validator, pino-http) cost several times its own CPU
 * (docs/benchmarks.md).
 *
 * It takes, by its headers alone, a request whose body the pipeline would read as UTF-8 JSON
 * (Content-Type application/json, a Content-Length within the body limit, no
 * Content-Encoding) and that carries an `x-api-key`; everything else goes to the pipeline
 * untouched. It then reads the body. A body that is not the plainest valid submission
 * (plainSubmission) goes to the pipeline with the body handed over, having counted nothing:
 * the pipeline checks the key, the rate limit and the body, and words the errors, as always.
 * Otherwise it does what the pipeline does, in its order: counts the request on the dispute
 * budget (over it: the pipeline answers 4290 without counting again), authenticates the key
 * (4011) and files the dispute, in one statement (DisputesService.submitDisputeByKey: the
 * pipeline's guard and handler take a round trip each); and answers with the same headers, envelope, log line and
 * metrics, error answers included (test/dispute-fast-path.e2e-spec.ts compares the two).
 */
export class DisputeFastPath implements FastPath {
  private readonly securityHeaders = recordedSecurityHeaders();
  private readonly answered: Counter;

  constructor(private readonly parts: DisputeFastPathParts) {
    this.answered = parts.metrics.disputeFastPath;
  }

  take(req: IncomingMessage, res: ServerResponse, pipeline: RequestListener): boolean {
    const apiKey = this.takenKeyOf(req);
    if (apiKey === undefined) return false;
    const taken: Taken = {
      req,
      res,
      apiKey,
      requestId: requestIdOf(req.headers['x-request-id']),
      started: process.hrtime.bigint(),
      handedOver: false,
      gone: false,
    };
    // A client that leaves before its answer (while sending its body, or while it is filed) is
    // logged when its connection closes, as pino-http logs it in the pipeline.
    watchClientLeaving(taken, this.parts.requestLog);
    readBody(req)
      .then(
        (raw) => {
          taken.read = process.hrtime.bigint();
          return this.withBody(taken, parseJsonBody(raw), pipeline);
        },
        // Cut off: the connection is closing or closed; its line is written on 'close'.
        () => res.destroy(),
      )
      .catch((error: unknown) => this.failed(taken, error));
    return true;
  }

  /** The request's API key, when it is a submission the fast path takes. */
  private takenKeyOf(req: IncomingMessage): string | undefined {
    if (req.method !== 'POST' || req.url !== ROUTE) return undefined;
    const { headers } = req;
    const length = headers['content-length'];
    if (length === undefined || !/^\d{1,6}$/.test(length) || Number(length) > BODY_LIMIT_BYTES) return undefined;
    if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return undefined;
    const contentType = headers['content-type']?.toLowerCase().replace(/[ \t]/g, '');
    if (contentType === undefined || !JSON_CONTENT_TYPES.has(contentType)) return undefined;
    const apiKey = headers['x-api-key'];
    const trimmed = typeof apiKey === 'string' ? apiKey.trim() : '';
    return trimmed === '' ? undefined : trimmed;
  }

  private async withBody(taken: Taken, body: ReadBody, pipeline: RequestListener): Promise<void> {
    const { req, res } = taken;
    const submission = 'value' in body ? plainSubmission(body.value) : undefined;
    if (!submission) return this.handOver(taken, body, pipeline);

    let record: ThrottlerStorageRecord;
    try {
      const key = rateLimitKey(DisputesController.name, HANDLER, THROTTLER, disputeTracker(taken.apiKey));
      record = await this.parts.storage.increment(key, RATE_LIMIT_WINDOW_MS, this.parts.limit, RATE_LIMIT_WINDOW_MS, THROTTLER);
    } catch {
      // The counters' store failed (Redis): the pipeline reports it as it does for any route.
      return this.handOver(taken, body, pipeline);
    }
    if (record.isBlocked) return this.handOver(taken, body, pipeline);
    const rate: RateLimitState = { limit: this.parts.limit, record };
    taken.rate = rate;

    const { requestId } = taken;
    let partner = null as AuthenticatedPartner | null; // set once the key is found valid
    let answer: { code: number; body: string };
    try {
      const data = await this.parts.disputes.submitDisputeByKey(taken.apiKey, submission, (holder) => {
        partner = holder;
        this.parts.partnerKeys.touch(holder.keyId);
      });
      answer = { code: 0, body: JSON.stringify({ code: 0, msg: 'success', data }) };
    } catch (error) {
      const { apiError, unexpected } = toApiError(error);
      if (unexpected) logUnexpectedError(this.parts.requestLog, error, { requestId, route: ROUTE });
      answer = { code: apiError.code, body: JSON.stringify(errorEnvelope(apiError)) };
    }
    // The client gone meanwhile: the pipeline would have written to a closed connection, and
    // counted no metric (RequestMetricsMiddleware counts finished responses).
    if (taken.gone) return;
    sendEnvelope(res, this.securityHeaders, requestId, rate, answer.body);
    this.account(taken, answer.code, partner?.source);
  }

  /** The pipeline takes over, with the body already read (unless the client has left: logged). */
  private handOver(taken: Taken, body: ReadBody, pipeline: RequestListener): void {
    if (taken.gone) return;
    taken.handedOver = true;
    handOverReadBody(taken.req, body);
    pipeline(taken.req, taken.res);
  }

  /**
   * A bug here must not take the process down, nor leave the request without an answer: it is
   * logged as the exception filter logs one and answered 5000, or the connection is closed if
   * an answer had begun. Never handed to the pipeline: the dispute may have been filed.
   */
  private failed(taken: Taken, error: unknown): void {
    const { res, requestId } = taken;
    try {
      logUnexpectedError(this.parts.requestLog, error, { requestId, route: ROUTE });
      if (taken.handedOver || taken.gone || res.writableEnded) return;
      if (res.headersSent) return void res.destroy();
      const internal = new ApiError(ErrorCatalogue.INTERNAL);
      sendEnvelope(res, this.securityHeaders, requestId, taken.rate, JSON.stringify(errorEnvelope(internal)));
      this.account(taken, internal.code, undefined);
    } catch {
      res.destroy();
    }
  }

  /** The metrics and the log line of an answered request. */
  private account(taken: Taken, code: number, partner: string | undefined): void {
    const { req, requestId, started, read = started } = taken;
    const labels = { method: 'POST', route: ROUTE, code: String(code) };
    this.parts.metrics.requests.inc(labels);
    this.parts.metrics.latency.observe(labels, secondsSince(read));
    this.answered.inc();
    logRequest(this.parts.requestLog, req, { requestId, seconds: secondsSince(started), answered: { route: ROUTE, code, partner } });
  }
}

/** The whole body of `req`, once it has ended; rejects if the request is cut off before. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    const aborted = () => reject(new Error('request aborted'));
    req.once('error', aborted);
    req.once('close', () => {
      if (!req.complete) aborted();
    });
  });
}

/** The dispute submission's fast path, wired to the application's parts. */
export function disputeFastPath(app: NestExpressApplication): DisputeFastPath {
  const config = app.get(ConfigService<Environment, true>);
  return new DisputeFastPath({
    partnerKeys: app.get(PartnerKeysService),
    disputes: app.get(DisputesService),
    storage: app.get<ThrottlerStorage>(ThrottlerStorage),
    metrics: app.get(MetricsService),
    limit: config.get('RATE_LIMIT_DISPUTE_PER_MINUTE', { infer: true }),
    requestLog: requestLog(),
  });
}
