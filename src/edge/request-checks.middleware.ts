import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { FORWARDED_FOR_LIMITS, forwardedForWithinBounds } from '../common/client-address';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';

/** Whether the path part of `url` is valid percent-encoding (routes decode their parameters). */
function decodablePath(url: string): boolean {
  const end = url.indexOf('?');
  const path = end === -1 ? url : url.slice(0, end);
  if (!path.includes('%')) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** How many Host fields the request has (Node keeps the first in `headers`, all in `rawHeaders`). */
function hostFields(req: Request): number {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].length === 4 && req.rawHeaders[i].toLowerCase() === 'host') count++;
  return count;
}

/** Node's own test of an Expect header for 100-continue (what it answers 100 Continue to). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

// 4000 before any route, where Node would answer an empty 400/417: HTTP/1.1 without Host, or with two (RFC 9112 §3.2:
// proxies could read another host), an X-Forwarded-For too long to walk cheaply, or an Expect other than 100-continue. Conditional headers are dropped: Express
// would answer a bodiless 304, and every answer is a whole envelope with HTTP 200 (spec §1).
@Injectable()
export class RequestChecksMiddleware implements NestMiddleware {
  use(req: Request, _res: Response, next: NextFunction): void {
    if (!decodablePath(req.url)) throw new ApiError(ErrorCatalogue.INVALID_REQUEST);
    if (req.headers.host === undefined && req.httpVersion === '1.1') throw new ApiError(ErrorCatalogue.INVALID_REQUEST, 'the Host header is required');
    if (hostFields(req) > 1) throw new ApiError(ErrorCatalogue.INVALID_REQUEST, 'a request has one Host header');
    if (!forwardedForWithinBounds(req)) {
      const { hops, characters } = FORWARDED_FOR_LIMITS;
      throw new ApiError(ErrorCatalogue.INVALID_REQUEST, `X-Forwarded-For may name at most ${hops} addresses in at most ${characters} characters`);
    }
    const expectation = req.headers.expect;
    if (expectation !== undefined && !CONTINUE.test(expectation)) {
      throw new ApiError(ErrorCatalogue.INVALID_REQUEST, 'the Expect header can only be 100-continue');
    }
    if (req.headers['if-none-match'] !== undefined) delete req.headers['if-none-match'];
    if (req.headers['if-modified-since'] !== undefined) delete req.headers['if-modified-since'];
    next();
  }
}
