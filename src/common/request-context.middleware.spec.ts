import { describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import fc from 'fast-check';
import { Readable } from 'node:stream';
import { parseJson, parseJsonBody } from './request-context.middleware';

/** What the pipeline's body parser makes of `raw` sent as a JSON body: the value, or the failure's type. */
function parsedByThePipeline(raw: Buffer): Promise<{ value: unknown } | { type: unknown }> {
  const req = Object.assign(Readable.from([raw]), {
    headers: { 'content-type': 'application/json', 'content-length': String(raw.length) },
  }) as unknown as Request;
  return new Promise((done) =>
    parseJson(req, {} as Response, (error?: unknown) =>
      done(error ? { type: (error as { type?: unknown }).type } : { value: (req as { body?: unknown }).body }),
    ),
  );
}

const outcome = (raw: Buffer) => {
  const read = parseJsonBody(raw);
  return 'value' in read ? { value: read.value } : { type: (read.error as { type?: unknown }).type };
};

const BOM = '\ufeff';
const bodies = fc.oneof(
  fc.json().map((text) => Buffer.from(text)),
  fc.json().map((text) => Buffer.from(`${BOM}${text}`)),
  fc.json().map((text) => Buffer.from(` \n${text}\t`)),
  fc.json().map((text) => Buffer.from(text.slice(0, Math.max(0, text.length - 1)))),
  fc.string({ unit: 'binary', maxLength: 20 }).map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom('', BOM, `${BOM}${BOM}{}`, ' ', 'null', '"x"', '1e400', '{"a":1,"a":2}', '{"__proto__":{"x":1}}').map((text) => Buffer.from(text)),
);

describe('parseJsonBody', () => {
  it('reads a complete body as the pipeline\'s body parser does', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (raw) => {
        expect(outcome(raw)).toEqual(await parsedByThePipeline(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the parser\'s failure type for a syntax error (4001), keeping an own __proto__ member', () => {
    expect(outcome(Buffer.from('{"a":'))).toEqual({ type: 'entity.parse.failed' });
    expect(outcome(Buffer.from(''))).toEqual({ value: {} });
    const read = parseJsonBody(Buffer.from('{"__proto__":{"x":1}}'));
    expect('value' in read && Object.keys(read.value as object)).toEqual(['__proto__']);
  });
});
