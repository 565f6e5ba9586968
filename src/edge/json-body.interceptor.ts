import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { json } from 'express';
import type { Request, Response } from 'express';
import { isUtf8 } from 'node:buffer';
import { from, mergeMap, type Observable } from 'rxjs';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { unsupportedBodyCoding } from '../common/error-mapping';
import { withExactIntegers } from '../common/exact-integers';
import { BODY_LIMIT_BYTES, declaredLength, readsBody } from './body-budget.middleware';
import type { ServiceRequest } from '../common/request-context';

const UTF8 = new TextDecoder('utf-8');

/** The bytes of each body read: an empty one is no JSON, as if none was sent. */
const rawBodies = new WeakMap<object, Buffer>();

// Every body is read as JSON whatever its Content-Type: this is a JSON-only API, and a
// mislabelled body is better reported as malformed JSON than silently ignored. (body-parser
// reads an empty body as {}; `verify` sees its bytes first, and also makes it hold them as
// buffers, decoded once, rather than as a growing string.) Bodies are UTF-8 (RFC 8259 §8.1),
// strictly: body-parser decodes any `utf-*` charset iconv-lite knows (UTF-16 of either byte
// order, UTF-32, UTF-7, labels such as `utf--8`) and what does not decode as U+FFFD, which
// PostgreSQL would then store in place of what was sent. Another charset is 4000, bytes that
// are not UTF-8 are 4001, both once the body is read (64 KiB at most).
const parseJson = json({
  limit: BODY_LIMIT_BYTES,
  strict: false,
  type: () => true,
  verify: (req, _res, raw, charset) => {
    if (charset !== 'utf-8') throw unsupportedBodyCoding();
    if (!isUtf8(raw)) throw new ApiError(ErrorCatalogue.MALFORMED_JSON, 'the body is not valid UTF-8');
    rawBodies.set(req, raw);
  },
});

/** What was parsed of `req`'s body: undefined if it was empty, its integers exact (withExactIntegers). */
function bodyOf(req: Request): unknown {
  const raw = rawBodies.get(req);
  if (!raw) return req.body;
  const text = () => UTF8.decode(raw);
  // Empty once decoded: no bytes, or only a byte order mark.
  if (raw.length <= 3 && text().length === 0) return undefined;
  return withExactIntegers(req.body, text);
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
    if (!readsBody(req)) return next.handle();
    return from(read(req, context.switchToHttp().getResponse<Response>())).pipe(mergeMap(() => next.handle()));
  }
}

/** Reads `req`'s body into `req.body`, or throws why it cannot. */
async function read(req: ServiceRequest, res: Response): Promise<void> {
  // Its connection closed while the guards ran.
  if (req.socket.destroyed) throw bodyNotArrived();
  // The client waits for this before it sends the body (any other expectation was refused: 4000).
  if (req.headers.expect !== undefined && req.httpVersion === '1.1') {
    // A body declared too large is not invited: it is refused at once, and the connection closed
    // rather than left to a body that may follow (RFC 9110 §10.1.1). Invited, it was read off
    // until the request's deadline, since the client then sends it whole.
    if ((declaredLength(req) ?? 0) > BODY_LIMIT_BYTES) {
      res.setHeader('Connection', 'close');
      throw new ApiError(ErrorCatalogue.PAYLOAD_TOO_LARGE);
    }
    res.writeContinue();
  }
  const error = await new Promise<unknown>((done) => parseJson(req, res, done));
  // Answered while its body was read (it did not arrive in time), or its client has gone: this
  // answer goes nowhere (the exception filter writes nothing once an answer is sent).
  if (res.headersSent || req.socket.destroyed) throw bodyNotArrived();
  req.context.place?.take();
  if (error) throw error;
  req.body = bodyOf(req);
}
