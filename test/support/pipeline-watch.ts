import type { INestApplication } from '@nestjs/common';
import type { Response } from 'supertest';

/**
 * Tells which requests reached Express (the pipeline) and which a fast path answered ahead of
 * it: Express's app function hands every request it gets to app.handle, which is counted.
 */
export function watchPipeline(app: INestApplication) {
  let calls = 0;
  const express = app.getHttpAdapter().getInstance() as { handle: (...args: unknown[]) => unknown };
  const handle = express.handle;
  express.handle = function (this: unknown, ...args: unknown[]) {
    calls++;
    return handle.apply(this, args);
  };
  /** The response, and whether Express saw the request. */
  return async (request: PromiseLike<Response>) => {
    const before = calls;
    const response = await request;
    return { response, byPipeline: calls > before };
  };
}

/** Raw headers as sent, in order, with the values of `varying` headers (lower case) blanked. */
export function stableHeaders(response: Response, varying: string[]): string[] {
  const raw = (response as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders;
  const pairs: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    pairs.push(`${raw[i]}: ${varying.includes(raw[i].toLowerCase()) ? '…' : raw[i + 1]}`);
  }
  return pairs;
}
