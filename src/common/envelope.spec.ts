import { describe, expect, it } from '@jest/globals';
import { errorEnvelope, successEnvelope, successEnvelopeJson } from './envelope';
import { ApiError, ErrorCatalogue } from './error-catalogue';

describe('the envelopes', () => {
  it('splices serialized data into the bytes res.json sends for the same data', () => {
    for (const data of [{ markets: [] }, { markets: [{ id: 1, slug: 'a"b' }] }, {}]) {
      expect(successEnvelopeJson(JSON.stringify(data))).toBe(JSON.stringify(successEnvelope(data)));
    }
    expect(successEnvelope({})).toEqual({ code: 0, msg: 'success', data: {} });
  });

  it("answers an error with its catalogue message and its detail, in the contract's order", () => {
    expect(JSON.stringify(errorEnvelope(new ApiError(ErrorCatalogue.INVALID_REQUEST, 'limit must be an integer')))).toBe(
      '{"code":4000,"msg":"invalid request","detail":"limit must be an integer"}',
    );
  });
});
