import { applyDecorators, CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata, UseInterceptors } from '@nestjs/common';
import { json } from 'express';
import type { Request, Response } from 'express';
import { isUtf8 } from 'node:buffer';
import { from, mergeMap, type Observable } from 'rxjs';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { unsupportedBodyCoding } from '../errors/error-mapping';
import { withExactIntegers } from '../common/exact-integers';
import { BODY_LIMIT_BYTES, declaredLength, readsBody } from './body-budget.middleware';
import type { ServiceRequest } from '../common/request-context';

const UTF8 = new TextDecoder('utf-8');

/** The bytes of each body read: an empty one is no JSON, as if none was sent. */
const rawBodies = new WeakMap<object, Buffer>();

// JSON whatever the Content-Type: a mislabelled body is better malformed than ignored. Strictly UTF-8 (RFC 8259 §8.1):
// body-parser decodes any `utf-*` charset (UTF-16, UTF-7, `utf--8`...) and stores undecodable bytes as U+FFFD.
// `verify` keeps the raw bytes, since body-parser reads an empty body as {}.
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

// After the guards, so a refused request is answered unread and gives its body budget back at once. A body refused for
// its size is read off first, so the client reads the answer rather than a reset. The request then takes its place
// among those in progress (LoadSheddingMiddleware): slow uploads do not hold the places of requests ready to run.
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<ServiceRequest>();
    if (!readsBody(req)) return next.handle();
    return from(read(req, context.switchToHttp().getResponse<Response>())).pipe(mergeMap(() => next.handle()));
  }
}

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

/** Marks a route that reads a body (its answers then include the body's codes). */
export const JSON_BODY = 'edge:json-body';

/** On every POST handler (its first interceptor): the route reads a JSON body, once its guards let the request in. */
export const JsonBody = (): MethodDecorator => applyDecorators(UseInterceptors(JsonBodyInterceptor), SetMetadata(JSON_BODY, true));
