import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { json } from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { Environment } from '../config/environment';
import { MetricsService } from '../observability/metrics.service';
import { ByteBudget } from './byte-budget';
import { clientOf } from './client-address';
import { ErrorCatalogue } from './error-catalogue';
import { withExactIntegers } from './exact-integers';
import { shedRequest } from './http/shed';
import { ensureRequestContext } from './request-context.middleware';

export const BODY_LIMIT_BYTES = 64 * 1024;

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
  verify: (req, _res, raw, charset) => void rawBodies.set(req, { raw, charset }),
});

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

/**
 * What reading `req`'s body may hold in memory: its declared length, or the limit when it comes
 * in chunks or compressed. A body declared over the limit is refused without being held (it is
 * read off).
 */
function bytesToHold(req: Request): number {
  const compressed = (req.headers['content-encoding'] ?? 'identity').toLowerCase() !== 'identity';
  if (compressed) return BODY_LIMIT_BYTES;
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    const length = Number(declared);
    return length <= BODY_LIMIT_BYTES ? length : 0;
  }
  return req.headers['transfer-encoding'] === undefined ? 0 : BODY_LIMIT_BYTES;
}

/**
 * Reads the body (64 KiB at most). A failure is held back, not answered: the envelope
 * interceptor raises it after the guards, so that credentials are checked before the body. A
 * body refused for its size is read off to its end first (body-parser), so that the client
 * reads the answer rather than a reset; the request's deadline bounds that wait.
 *
 * The bodies being read and worked on are held in memory together, so the process holds at
 * most MAX_BODY_BYTES_IN_FLIGHT of them (by declared length), from their headers until their
 * answers are written, and one client address at most a quarter of that (ByteBudget). Beyond
 * its share, 4290; beyond the whole, 5031; both with Retry-After at once, before a byte is read.
 * Without the bound, a few thousand connections trickling 64 KiB bodies at once exhausted the
 * heap before the limit on requests in progress (which counts from when a body is read) saw any
 * of them. Requests without a body never wait on it.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly budget: ByteBudget;

  constructor(
    @Inject(ConfigService) config: ConfigService<Environment, true>,
    private readonly metrics: MetricsService,
  ) {
    this.budget = new ByteBudget(config.get('MAX_BODY_BYTES_IN_FLIGHT', { infer: true }), BODY_LIMIT_BYTES);
  }

  use(req: Request, res: Response, next: NextFunction): void {
    const size = bytesToHold(req);
    if (size > 0) {
      const client = clientOf(req);
      const refusal = this.budget.take(client, size);
      if (refusal === 'client') {
        throw shedRequest(this.metrics, res, 'client-bodies', ErrorCatalogue.TOO_MANY_REQUESTS, 'too many request bodies in progress from this address');
      }
      if (refusal === 'process') throw shedRequest(this.metrics, res, 'bodies', ErrorCatalogue.SERVER_BUSY, 'too many request bodies in progress');
      this.metrics.bodyBytesHeld.set(this.budget.held);
      // 'close' comes once the answer is written or never will be, also for a pipelined request
      // whose connection closed before its turn (on-finished waits for a socket it never gets).
      res.once('close', () => {
        this.budget.give(client, size);
        this.metrics.bodyBytesHeld.set(this.budget.held);
      });
    }
    parseJson(req, res, (error?: unknown) => {
      // Answered while its body was read (it did not arrive in time), or its client has gone:
      // nothing is left to do.
      if (res.headersSent || req.socket.destroyed) return;
      if (error) ensureRequestContext(req, res).bodyError = error;
      else req.body = bodyOf(req);
      next();
    });
  }
}
