import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { json } from 'express';
import { isUtf8 } from 'node:buffer';
import type { Request, Response } from 'express';
import { from, mergeMap, type Observable } from 'rxjs';
import { ApiError, ErrorCatalogue } from './error-catalogue';
import { withExactIntegers } from './exact-integers';
import { BODY_LIMIT_BYTES, readsBody } from './http/body-budget.middleware';
import { isRawResponse } from './raw-response.decorator';
import type { ServiceRequest } from './request-context';

const UTF8 = new TextDecoder('utf-8');

/** The bytes of each body read, and their charset: an empty one is no JSON, as if none was sent. */
const rawBodies = new WeakMap<object, { raw: Buffer; charset: string }>();

// Every body is read as JSON whatever its Content-Type: this is a JSON-only API, and a
// mislabelled body is better reported as malformed JSON than silently ignored. (body-parser
// reads an empty body as {}; `verify` sees its bytes first, and also makes it hold them as
// buffers, decoded once, rather than as a growing string.)
const parseJson = json({
  limit: BODY_LIMIT_BYTES,
  strict: false,
  type: () => true,
  verify: (req, _res, raw, charset) => {
    if (!isText(raw, charset)) throw new ApiError(ErrorCatalogue.MALFORMED_JSON, `the body is not valid ${charset.toUpperCase()}`);
    rawBodies.set(req, { raw, charset });
  },
});

/**
 * Whether `raw` is text in `charset`: body-parser decodes bytes that are not as U+FFFD, which
 * PostgreSQL would then store in place of what was sent. UTF-32, which TextDecoder does not
 * know, is left to body-parser.
 */
function isText(raw: Buffer, charset: string): boolean {
  if (charset === 'utf-8') return isUtf8(raw);
  const decoder = strictDecoder(charset);
  if (!decoder) return true;
  try {
    decoder.decode(raw);
    return true;
  } catch {
    return false;
  }
}

function strictDecoder(charset: string) {
  try {
    return new TextDecoder(charset, { fatal: true });
  } catch {
    return undefined;
  }
}

/** What was parsed of `req`'s body: undefined if it was empty, its integers exact (withExactIntegers). */
function bodyOf(req: Request): unknown {
  const sent = rawBodies.get(req);
  if (!sent) return req.body;
  // A charset body-parser reads and TextDecoder does not (UTF-32): the body as it was read.
  const text = () => (sent.charset === 'utf-8' ? UTF8 : new TextDecoder(sent.charset)).decode(sent.raw);
  // Empty once decoded: no bytes, or only a byte order mark.
  if (sent.raw.length <= 4 && isEmptyText(text)) return undefined;
  return withExactIntegers(req.body, text);
}

function isEmptyText(text: () => string): boolean {
  try {
    return text().length === 0;
  } catch {
    return false;
  }
}

const bodyNotArrived = () => new ApiError(ErrorCatalogue.INVALID_REQUEST, 'the request body did not arrive');

/**
 * Reads the body (64 KiB at most) after the guards: a request refused for its credentials, its
 * rate limit or its route is answered without its body being read (Node reads it off the
 * connection, keeping nothing), and its bytes of the body budget (BodyBudgetMiddleware) are
 * given back as soon as it is answered. Before, bodies were read first, so slow uploads without
 * a valid key, one from each of four addresses, held the whole budget until their deadline, and
 * every partner's disputes got 5031 meanwhile. A failure to read it is the request's answer
 * (4001, 4130); a body refused for its size is read off to its end first (body-parser), so that
 * the client reads the answer rather than a reset; the request's deadline bounds that wait.
 * Once its body is read, a request takes its place among the requests in progress
 * (LoadSheddingMiddleware): slow uploads do not take the places of requests ready to run.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<ServiceRequest>();
    if (!readsBody(req) || isRawResponse(context)) return next.handle();
    return from(read(req, context.switchToHttp().getResponse<Response>())).pipe(mergeMap(() => next.handle()));
  }
}

/** Reads `req`'s body into `req.body`, or throws why it cannot. */
async function read(req: ServiceRequest, res: Response): Promise<void> {
  // Its connection closed while the guards ran.
  if (req.socket.destroyed) throw bodyNotArrived();
  // The client waits for this before it sends the body (any other expectation was refused: 4000).
  if (req.headers.expect !== undefined && req.httpVersion === '1.1') res.writeContinue();
  const error = await new Promise<unknown>((done) => parseJson(req, res, done));
  // Answered while its body was read (it did not arrive in time), or its client has gone: this
  // answer goes nowhere (the exception filter writes nothing once an answer is sent).
  if (res.headersSent || req.socket.destroyed) throw bodyNotArrived();
  req.context.place?.take();
  if (error) throw error;
  req.body = bodyOf(req);
}
