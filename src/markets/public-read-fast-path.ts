import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface.js';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { Counter, Histogram } from 'prom-client';
import proxyAddr from 'proxy-addr';
import { type FastPath, logRequest, logUnexpectedError, type RequestLog, requestLog, secondsSince, sendEnvelope } from '../common/fast-path';
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

/**
 * `GET /oracle/markets/public` for a record already in the public cache, answered before Express
 * and Nest see the request. It is the route partners poll, and the framework's layers (Express's
 * router, Nest's guards, interceptor and filter, pino-http) cost about 300 µs of CPU per request
 * where the answer itself costs a map lookup (docs/benchmarks.md).
 *
 * It answers only what the full pipeline would answer with that very record, and exactly as
 * the pipeline does: the same helmet headers, `x-request-id`, rate-limit counter and headers,
 * envelope bytes, log line and metrics (test/public-read-fast-path.e2e-spec.ts compares the
 * two, and the fault suite their log lines). Everything else goes to the pipeline untouched,
 * having counted nothing: a record not in the cache, a query the pipeline would reject, a body,
 * a URL Express would read another way. A client over its rate limit is counted here, and the
 * pipeline, which answers its 4290, does not count it again (a blocked counter stays put).
 * The cache is consulted twice: before counting, without side effects, to decide; after, to
 * serve (a hit, perhaps a reload ahead), as the pipeline's handler does after its guard.
 */
export class PublicReadFastPath implements FastPath {
  private readonly securityHeaders = recordedSecurityHeaders();
  private readonly requests: Counter.Internal;
  private readonly latency: Histogram.Internal<'method' | 'route' | 'code'>;
  private readonly answered: Counter;

  constructor(private readonly parts: FastPathParts) {
    this.requests = parts.metrics.requests.labels({ method: 'GET', route: ROUTE, code: '0' });
    this.latency = parts.metrics.latency.labels({ method: 'GET', route: ROUTE, code: '0' });
    this.answered = parts.metrics.publicFastPath;
  }

  /**
   * Takes `req` and answers it, or returns false at once, having done nothing, when it is not
   * a cached public read. `pipeline` gets the requests taken but then left to it.
   */
  take(req: IncomingMessage, res: ServerResponse, pipeline: RequestListener): boolean {
    let taken: { query: PublicMarketQuery; requestId: string; key: string; started: bigint };
    try {
      const query = this.cachedQueryOf(req);
      if (!query) return false;
      const tracker = publicTracker(proxyAddr(req, this.parts.trustProxy));
      taken = {
        query,
        requestId: requestIdOf(req.headers['x-request-id']),
        key: rateLimitKey(MarketsController.name, HANDLER, THROTTLER, tracker),
        started: process.hrtime.bigint(),
      };
    } catch (error) {
      this.failed(error);
      return false;
    }
    const { key, requestId } = taken;
    new Promise<ThrottlerStorageRecord>((counted) =>
      counted(this.parts.storage.increment(key, RATE_LIMIT_WINDOW_MS, this.parts.limit, RATE_LIMIT_WINDOW_MS, THROTTLER)),
    )
      .then(
        (limit) => this.afterCounting(req, res, pipeline, taken, limit),
        // The counters' store failed (Redis): the pipeline reports it as it does for any route.
        () => pipeline(req, res),
      )
      .catch((error: unknown) => this.failed(error, requestId));
    return true;
  }

  private afterCounting(
    req: IncomingMessage,
    res: ServerResponse,
    pipeline: RequestListener,
    { query, requestId, started }: { query: PublicMarketQuery; requestId: string; started: bigint },
    { isBlocked, totalHits, timeToExpire }: ThrottlerStorageRecord,
  ): void {
    // Blocked: the pipeline counts nothing more for a blocked caller, and answers 4290. The
    // client gone meanwhile: the pipeline deals with that as it does for any route.
    if (isBlocked || req.socket.destroyed) return pipeline(req, res);
    // The record is read now, after the count, as the pipeline's handler reads it after its
    // guard: a change acknowledged while the counter was being updated (a Redis round trip)
    // has evicted it by then. Gone: the pipeline reads it afresh (this request then counts
    // twice toward the caller's limit, in that rare race).
    const record = this.parts.markets.cachedPublicMarkets(query);
    if (!record) return pipeline(req, res);
    try {
      sendEnvelope(res, this.securityHeaders, requestId, { limit: this.parts.limit, record: { totalHits, timeToExpire } }, record.envelope());
    } catch (error) {
      this.failed(error, requestId);
      if (res.headersSent) res.destroy();
      else pipeline(req, res);
      return;
    }
    try {
      this.account(req, requestId, started);
    } catch (error) {
      this.failed(error, requestId);
    }
  }

  /** A bug here must not take the process down: logged like the exception filter logs one. */
  private failed(error: unknown, requestId?: string): void {
    logUnexpectedError(this.parts.requestLog, error, { requestId, route: ROUTE });
  }

  /** The query of `req` if it is a plain public read of a record the cache holds now. */
  private cachedQueryOf(req: IncomingMessage): PublicMarketQuery | undefined {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(ROUTE_WITH_QUERY) || UNUSUAL_URL.test(url)) {
      return undefined;
    }
    // The pipeline reads (and may reject) a body even on GET.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return undefined;
    let query: PublicMarketQuery;
    try {
      // Express's query parser ("simple") is this very function.
      query = parsePublicMarketQuery(parseQueryString(url.slice(ROUTE_WITH_QUERY.length)));
    } catch {
      return undefined;
    }
    return this.parts.markets.hasCachedPublicMarkets(query) ? query : undefined;
  }

  /** The metrics and the log line of an answered request. */
  private account(req: IncomingMessage, requestId: string, started: bigint): void {
    const seconds = secondsSince(started);
    this.requests.inc();
    this.latency.observe(seconds);
    this.answered.inc();
    logRequest(this.parts.requestLog, req, { requestId, seconds, answered: { route: ROUTE, code: 0 } });
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
