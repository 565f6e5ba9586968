import { describe, expect, it } from '@jest/globals';
import type { Response } from 'express';
import { CLIENT_CLOSED, codeOf } from './request-log';

const response = (fields: { envelopeCode?: number; headersSent: boolean; statusCode: number }) =>
  ({ locals: { envelopeCode: fields.envelopeCode }, headersSent: fields.headersSent, statusCode: fields.statusCode }) as unknown as Response;

describe('codeOf', () => {
  it('is the envelope code, else the HTTP status sent (the ops routes), else 499: the client left before any answer', () => {
    expect(codeOf(response({ envelopeCode: 4044, headersSent: true, statusCode: 200 }))).toBe(4044);
    expect(codeOf(response({ headersSent: true, statusCode: 503 }))).toBe(503);
    // Node's default status is 200 until something is answered: it was counted as a 200.
    expect(codeOf(response({ headersSent: false, statusCode: 200 }))).toBe(CLIENT_CLOSED);
    expect(CLIENT_CLOSED).toBe(499);
  });
});
