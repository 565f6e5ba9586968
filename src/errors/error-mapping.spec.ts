import { describe, expect, it } from '@jest/globals';
import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { toApiError } from './error-mapping';

function codeOf(error: unknown): number {
  return toApiError(error).apiError.code;
}

describe('toApiError', () => {
  it('passes catalogued errors through with their detail', () => {
    const original = new ApiError(ErrorCatalogue.INVALID_REQUEST, 'market_id must be a positive integer');
    const { apiError, unexpected } = toApiError(original);
    expect(apiError).toBe(original);
    expect(unexpected).toBe(false);
  });

  it('maps body-parser failures', () => {
    expect(codeOf({ type: 'entity.parse.failed', status: 400 })).toBe(4001);
    expect(codeOf({ type: 'entity.too.large', status: 413 })).toBe(4130);
    expect(codeOf({ type: 'encoding.unsupported', status: 415 })).toBe(4000);
    // A body that does not decompress, or is shorter than its Content-Length: no JSON to read.
    expect(toApiError({ type: 'request.size.invalid', status: 400 }).apiError).toMatchObject({ code: 4001, detail: 'the body could not be decoded' });
    expect(codeOf(Object.assign(new Error('incorrect header check'), { errno: -3, code: 'Z_DATA_ERROR', status: 400 }))).toBe(4001);
  });

  it('maps framework HTTP exceptions', () => {
    expect(codeOf(new NotFoundException('Cannot GET /nope'))).toBe(4044);
    expect(codeOf(new PayloadTooLargeException())).toBe(4130);
  });

  it('maps an unreachable database to 5030', () => {
    expect(codeOf({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' })).toBe(5030);
  });

  it("maps a database failure that is the instance's overload to 5031, as the running instance judges it", () => {
    const poolWaitTimeout = new Error('timeout exceeded when trying to connect');
    expect(toApiError(poolWaitTimeout, { isOverload: () => true }).apiError.code).toBe(5031);
    expect(toApiError(poolWaitTimeout, { isOverload: () => false }).apiError.code).toBe(5030);
    expect(codeOf(poolWaitTimeout)).toBe(5030);
  });

  it('maps anything else to 5000 and flags it as unexpected', () => {
    const { apiError, unexpected } = toApiError(new TypeError('secret internal detail'));
    expect(apiError.code).toBe(5000);
    expect(apiError.detail).toBe('internal error');
    expect(unexpected).toBe(true);
  });
});
