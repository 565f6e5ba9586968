import { describe, expect, it, jest } from '@jest/globals';
import { type ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { DatabaseActivity } from '../database/database-activity';
import { LogRedaction } from '../observability/log-redaction';
import { MetricsService } from '../observability/metrics.service';
import { EnvelopeExceptionFilter } from './envelope-exception.filter';

const SECRET = 'sok_0123456789abcdefghijklmnop';

/** The filter with the database's view of a failure and the metrics faked, the log redaction real. */
async function filterWith({ unreadAnswers = false } = {}) {
  const database = { mayHaveUnreadAnswers: () => unreadAnswers, isOverload: () => false };
  const metrics = { shed: { inc: jest.fn() } };
  const module = await Test.createTestingModule({
    providers: [
      EnvelopeExceptionFilter,
      { provide: DatabaseActivity, useValue: database },
      { provide: MetricsService, useValue: metrics },
      { provide: LogRedaction, useValue: new LogRedaction(undefined) },
    ],
  }).compile();
  return module.get(EnvelopeExceptionFilter);
}

/** What the filter answered: HTTP status, headers, body and the code the log line reads. */
function answerOf({ headersSent = false, headers = {} as Record<string, string> } = {}) {
  const sent: { status?: number; body?: unknown; headers: Record<string, string>; locals: Record<string, unknown> } = { headers, locals: {} };
  const response = {
    headersSent,
    locals: sent.locals,
    hasHeader: (name: string) => name in sent.headers,
    setHeader: (name: string, value: string) => (sent.headers[name] = value),
    status: (status: number) => ((sent.status = status), response),
    json: (body: unknown) => (sent.body = body),
  };
  const request = { originalUrl: `/oracle/markets/public?slug=${SECRET}`, context: { requestId: 'r-1' } };
  const host = { switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }) } as unknown as ArgumentsHost;
  return { host, sent };
}

describe('EnvelopeExceptionFilter', () => {
  it('answers a catalogued error in its envelope, HTTP 200, and gives the log line its code', async () => {
    const filter = await filterWith();
    const { host, sent } = answerOf();
    filter.catch(new ApiError(ErrorCatalogue.API_KEY_INVALID), host);
    expect(sent).toMatchObject({ status: 200, body: { code: 4011, msg: 'invalid api key', detail: 'invalid api key' }, locals: { envelopeCode: 4011 } });
  });

  it("maps Nest's own exceptions into the catalogue (an unknown route: 4044)", async () => {
    const filter = await filterWith();
    const { host, sent } = answerOf();
    filter.catch(new NotFoundException(), host);
    expect(sent.body).toEqual({ code: 4044, msg: 'not found', detail: 'not found' });
  });

  it('says when to come back on a 4290: the error\'s seconds, 1 s without, the throttler\'s own header kept', async () => {
    const filter = await filterWith();
    const counted = answerOf();
    filter.catch(new ApiError(ErrorCatalogue.TOO_MANY_REQUESTS, 'too many failed authentications from this address', 42), counted.host);
    expect(counted.sent.headers['Retry-After']).toBe('42');
    const plain = answerOf();
    filter.catch(new ApiError(ErrorCatalogue.TOO_MANY_REQUESTS), plain.host);
    expect(plain.sent.headers['Retry-After']).toBe('1');
    const throttled = answerOf({ headers: { 'Retry-After': '60' } });
    filter.catch(new ApiError(ErrorCatalogue.TOO_MANY_REQUESTS), throttled.host);
    expect(throttled.sent.headers['Retry-After']).toBe('60');
  });

  it('answers anything unexpected 5000 with nothing of it, and logs it with the request id and cause, secrets redacted', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const filter = await filterWith();
      const { host, sent } = answerOf();
      filter.catch(new Error(`broke on ${SECRET}`), host);
      expect(sent.body).toEqual({ code: 5000, msg: 'internal error', detail: 'internal error' });
      expect(logged).toHaveBeenCalledTimes(1);
      expect(logged.mock.calls[0][0]).toMatchObject({ requestId: 'r-1', route: expect.not.stringContaining(SECRET) });
      expect(String(logged.mock.calls[0][1])).not.toContain(SECRET);
    } finally {
      logged.mockRestore();
    }
  });

  it('leaves an answer already sent alone, and waits a turn for unread database answers before judging a failure', async () => {
    const filter = await filterWith();
    const sentAlready = answerOf({ headersSent: true });
    filter.catch(Object.assign(new Error('headers sent'), { code: 'ERR_HTTP_HEADERS_SENT' }), sentAlready.host);
    expect(sentAlready.sent.status).toBeUndefined();

    const deferred = await filterWith({ unreadAnswers: true });
    const later = answerOf();
    deferred.catch(new ApiError(ErrorCatalogue.SERVER_BUSY), later.host);
    expect(later.sent.body).toBeUndefined();
    await new Promise((done) => setImmediate(done));
    expect(later.sent.body).toMatchObject({ code: ErrorCatalogue.SERVER_BUSY.code });
  });
});
