import { ArgumentsHost, Catch, ExceptionFilter, Injectable, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { DatabaseActivity } from '../database/database-activity';
import { databaseFailureOf } from '../database/database-errors';
import { LogRedaction } from '../observability/log-redaction';
import { MetricsService } from '../observability/metrics.service';
import { errorEnvelope } from '../common/envelope';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { toApiError } from './error-mapping';
import type { ServiceRequest } from '../common/request-context';

/** Answers that say "later" say when: Retry-After, 1 s unless the error knows better. */
const RETRY_LATER = new Set<number>([ErrorCatalogue.TOO_MANY_REQUESTS.code, ErrorCatalogue.IDEMPOTENCY_KEY_IN_PROGRESS.code, ErrorCatalogue.SERVER_BUSY.code]);

/** Every failure as the error envelope, always HTTP 200 (contract §1); unexpected details are logged, never sent. */
@Catch()
@Injectable()
export class EnvelopeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly database: DatabaseActivity,
    private readonly metrics: MetricsService,
    private readonly redaction: LogRedaction,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<ServiceRequest>();
    const response = http.getResponse<Response>();
    // Already answered while it was worked on (a protocol error found in its body, its deadline):
    // what came after, such as a guard setting its headers, changes nothing.
    if (response.headersSent && (exception as { code?: unknown })?.code === 'ERR_HTTP_HEADERS_SENT') return;
    // A wait for a pool connection ends in the timers phase of a turn of the event loop that may
    // have run long (a burst of requests): answers the database sent meanwhile are read in the
    // poll phase after it. The wait is judged once they are (DatabaseActivity.isOverload).
    if (this.database.mayHaveUnreadAnswers(exception)) setImmediate(() => this.answer(exception, request, response));
    else this.answer(exception, request, response);
  }

  private answer(exception: unknown, request: ServiceRequest, response: Response): void {
    const { apiError, unexpected } = toApiError(exception, this.database);

    if (unexpected) {
      this.logger.error(
        { requestId: request.context && this.redaction.text(request.context.requestId), route: this.redaction.url(request.originalUrl), err: exception },
        this.redaction.text(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)),
      );
    }
    if (response.headersSent) return;
    // A 5030, or a 5031 of the pool: the request's log line says what the database or the driver said.
    if (!(exception instanceof ApiError) && apiError.code >= 5030) response.locals.failure = databaseFailureOf(exception);
    // Shed at the edge it was counted there (shedRequest); here, a wait for a pool connection.
    if (apiError.code === ErrorCatalogue.SERVER_BUSY.code && !(exception instanceof ApiError)) this.metrics.shed.inc({ reason: 'database-pool' });
    // The throttler sets its own, from its window.
    if (RETRY_LATER.has(apiError.code) && !response.hasHeader('Retry-After')) response.setHeader('Retry-After', String(apiError.retryAfterSeconds ?? 1));
    response.locals.envelopeCode = apiError.code;
    response.status(200).json(errorEnvelope(apiError));
  }
}
