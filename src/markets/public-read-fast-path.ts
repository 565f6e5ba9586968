import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface.js';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { Counter, Histogram } from 'prom-client';
import proxyAddr from 'proxy-addr';
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
import { requestIdOf } from '../common/request-context.middleware';
import { recordedSecurityHeaders } from '../common/security-headers';
import type { Environment } from '../config/environment';
import { MetricsService } from '../observability/metrics.service';
import { publicTracker, RATE_LIMIT_WINDOW_MS, rateLimitKey } from '../observability/rate-limits';
import { MarketsController } from './markets.controller';
import { MarketsService } from './markets.service';
import { parsePublicMarketQuery, type PublicMarketQuery } from './public-market-query';

/** The route's template, as the metrics and the log line name it. */
const ROUTE = '/oracle/markets/public';
const ROUTE_WITH_QUERY = `${ROUTE}?`;
/** Characters that make Express parse a URL another way (parseurl falls back to url.parse). */
const UNUSUAL_URL = /[\t\n\f\r #\u00a0\ufeff]/;
/** The throttler and the handler whose rate-limit counter the route uses (ThrottlerGuard's key). */
const THROTTLER = 'default';
const HANDLER = MarketsController.prototype.getPublicMarket.name;

/** What the fast path needs from the application, resolved once. */
export interface FastPathParts {
  markets: MarketsService;
  storage: ThrottlerStorage;
  metrics: MetricsService;
  /** Requests per client IP per window on the public budget. */
  limit: number;
  /** Express's compiled `trust proxy` setting: who the client is behind proxies. */
  trustProxy: (address: string, hop: number) => boolean;
  /** pino-http's logger, which writes the request log lines. */
  requestLog: RequestLog;
}

/** One read taken. */
interface Taken extends TakenRequest {
  query: PublicMarketQuery;
}

/**
 * `GET /oracle/markets/public`, answered before Express and Nest see the request. It is the
 * route partners poll, and the framework's layers (Express's router, Nest's guards,
 * interceptor and filter, pino-http) cost several times the answer itself: a map lookup for a
 * cached record, one prepared statement for one that is not (docs/benchmarks.md).
 *
 * It takes, by its URL and headers alone, a plain read the pipeline would answer with a
 * record (exactly the route, `slug` and `source` and nothing else, no body, no URL Express
 * would parse another way); everything else goes to the pipeline untouched, having counted
 * nothing. It then does what the pipeline does, in its order: counts the request on the
 * caller's public budget (over it: the pipeline answers 4290 and, since a blocked counter
 * stays put, counts nothing more), reads the record (MarketsService: the cache, else the
 * database, as the handler does) and answers with the same helmet headers, `x-request-id`,
 * rate-limit headers, envelope bytes, log line and metrics, a 5030/5000 included
 * (test/public-read-fast-path.e2e-spec.ts compares the two, and the fault suite their log
 * lines). A client that leaves before its answer is logged as pino-http logs it.
 */
export class PublicReadFastPath implements FastPath {
  private readonly securityHeaders = recordedSecurityHeaders();
  private readonly answeredRequests: Counter.Internal;
  private readonly answeredLatency: Histogram.Internal<'method' | 'route' | 'code'>;
  private readonly answered: Counter;

  constructor(private readonly parts: FastPathParts) {
    this.answeredRequests = parts.metrics.requests.labels({ method: 'GET', route: ROUTE, code: '0' });
    this.answeredLatency = parts.metrics.latency.labels({ method: 'GET', route: ROUTE, code: '0' });
    this.answered = parts.metrics.publicFastPath;
  }

  /**
   * Takes `req` and answers it, or returns false at once, having done nothing, when it is not
   * a plain public read. `pipeline` gets the requests taken but then left to it.
   */
  take(req: IncomingMessage, res: ServerResponse, pipeline: RequestListener): boolean {
    let taken: Taken;
    let key: string;
    try {
      const query = this.plainQueryOf(req);
      if (!query) return false;
      const tracker = publicTracker(proxyAddr(req, this.parts.trustProxy));
      key = rateLimitKey(MarketsController.name, HANDLER, THROTTLER, tracker);
      taken = {
        req,
        res,
        query,
        requestId: requestIdOf(req.headers['x-request-id']),
        started: process.hrtime.bigint(),
        handedOver: false,
        gone: false,
      };
    } catch (error) {
      this.failed(error);
      return false;
    }
    watchClientLeaving(taken, this.parts.requestLog);
    new Promise<ThrottlerStorageRecord>((counted) =>
      counted(this.parts.storage.increment(key, RATE_LIMIT_WINDOW_MS, this.parts.limit, RATE_LIMIT_WINDOW_MS, THROTTLER)),
    )
      .then(
        (limit) => this.afterCounting(taken, pipeline, limit),
        // The counters' store failed (Redis): the pipeline reports it as it does for any route.
        () => this.handOver(taken, pipeline),
      )
      .catch((error: unknown) => this.failedTaken(taken, error));
    return true;
  }

  private async afterCounting(
    taken: Taken,
    pipeline: RequestListener,
    { isBlocked, totalHits, timeToExpire }: ThrottlerStorageRecord,
  ): Promise<void> {
    // Blocked: the pipeline counts nothing more for a blocked caller, and answers 4290.
    if (isBlocked) return this.handOver(taken, pipeline);
    if (taken.gone) return;
    const rate: RateLimitState = { limit: this.parts.limit, record: { totalHits, timeToExpire } };
    // The record is read now, after the count, as the pipeline's handler reads it after its
    // guard: a change acknowledged while the counter was being updated (a Redis round trip)
    // has evicted it by then.
    const cached = this.parts.markets.cachedPublicMarkets(taken.query);
    if (cached) return this.answer(taken, pipeline, rate, 0, cached.envelope());
    let answer: { code: number; body: string };
    try {
      answer = { code: 0, body: (await this.parts.markets.findPublicMarkets(taken.query)).envelope() };
    } catch (error) {
      // As the exception filter answers and logs it (5030 for a database out of reach).
      const { apiError, unexpected } = toApiError(error);
      if (unexpected) this.failed(error, taken);
      answer = { code: apiError.code, body: JSON.stringify(errorEnvelope(apiError)) };
    }
    this.answer(taken, pipeline, rate, answer.code, answer.body);
  }

  private answer(taken: Taken, pipeline: RequestListener, rate: RateLimitState, code: number, body: string): void {
    // The client gone meanwhile: the pipeline would have written to a closed connection, and
    // counted no metric (RequestMetricsMiddleware counts finished responses).
    if (taken.gone) return;
    const { res } = taken;
    try {
      sendEnvelope(res, this.securityHeaders, taken.requestId, rate, body);
    } catch (error) {
      this.failed(error, taken);
      if (res.headersSent) res.destroy();
      else this.handOver(taken, pipeline);
      return;
    }
    try {
      this.account(taken, code);
    } catch (error) {
      this.failed(error, taken);
    }
  }

  /** The pipeline takes over (unless the client has left: logged). */
  private handOver(taken: Taken, pipeline: RequestListener): void {
    if (taken.gone) return;
    taken.handedOver = true;
    pipeline(taken.req, taken.res);
  }

  /**
   * A bug here must not take the process down: logged as the exception filter logs one (its
   * route is the request's URL, as the filter's), for `taken` if the request was taken.
   */
  private failed(error: unknown, taken?: Taken): void {
    logUnexpectedError(this.parts.requestLog, error, { requestId: taken?.requestId, route: taken?.req.url ?? ROUTE });
  }

  /**
   * A bug after the request was taken: logged, and the request answered 5000 (or its
   * connection closed if an answer had begun), never left without an answer.
   */
  private failedTaken(taken: Taken, error: unknown): void {
    const { res } = taken;
    try {
      this.failed(error, taken);
      if (taken.handedOver || taken.gone || res.writableEnded) return;
      if (res.headersSent) return void res.destroy();
      const internal = new ApiError(ErrorCatalogue.INTERNAL);
      sendEnvelope(res, this.securityHeaders, taken.requestId, undefined, JSON.stringify(errorEnvelope(internal)));
      this.account(taken, internal.code);
    } catch {
      res.destroy();
    }
  }

  /** The query of `req` if it is a plain public read (one the pipeline answers with a record). */
  private plainQueryOf(req: IncomingMessage): PublicMarketQuery | undefined {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(ROUTE_WITH_QUERY) || UNUSUAL_URL.test(url)) {
      return undefined;
    }
    // The pipeline reads (and may reject) a body even on GET.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return undefined;
    try {
      // Express's query parser ("simple") is this very function.
      return parsePublicMarketQuery(parseQueryString(url.slice(ROUTE_WITH_QUERY.length)));
    } catch {
      return undefined;
    }
  }

  /** The metrics and the log line of an answered request. */
  private account({ req, requestId, started }: Taken, code: number): void {
    const seconds = secondsSince(started);
    if (code === 0) {
      this.answeredRequests.inc();
      this.answeredLatency.observe(seconds);
    } else {
      const labels = { method: 'GET', route: ROUTE, code: String(code) };
      this.parts.metrics.requests.inc(labels);
      this.parts.metrics.latency.observe(labels, seconds);
    }
    this.answered.inc();
    logRequest(this.parts.requestLog, req, { requestId, seconds, answered: { route: ROUTE, code } });
  }
}

/** The public read's fast path, wired to the application's parts. */
export function publicReadFastPath(app: NestExpressApplication): PublicReadFastPath {
  const config = app.get(ConfigService<Environment, true>);
  return new PublicReadFastPath({
    markets: app.get(MarketsService),
    storage: app.get<ThrottlerStorage>(ThrottlerStorage),
    metrics: app.get(MetricsService),
    limit: config.get('RATE_LIMIT_PUBLIC_PER_MINUTE', { infer: true }),
    trustProxy: app.getHttpAdapter().getInstance().get('trust proxy fn'),
    requestLog: requestLog(),
  });
}
