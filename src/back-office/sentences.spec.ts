import { describe, expect, it } from '@jest/globals';
import { ErrorCatalogue } from '../common/error-catalogue';
import { SENTENCES, sentenceFor } from './client/sentences';

describe("the back office page's sentences", () => {
  it('word every code of the catalogue, and the codes contract §2 adds (4043, 4045, 5031)', () => {
    const codes = [...Object.values(ErrorCatalogue).map((entry) => entry.code), 4043, 4045, 5031];
    expect(codes.filter((code) => SENTENCES[code] === undefined)).toEqual([]);
  });

  it('are sentences, not the catalogue messages', () => {
    for (const entry of Object.values(ErrorCatalogue)) {
      expect(SENTENCES[entry.code]).toMatch(/^[A-Z].*\.$/);
      expect(SENTENCES[entry.code]).not.toBe(entry.msg);
    }
  });

  it('say how long to wait when the service said so', () => {
    expect(sentenceFor(4290, 30)).toBe('Too many requests. Wait 30 seconds and try again.');
    expect(sentenceFor(5031, 1)).toBe('The service is busy right now. Wait 1 second and try again.');
    expect(sentenceFor(5031)).toBe('The service is busy right now. Wait a moment and try again.');
    expect(sentenceFor(4999)).toBe('The service refused this with an unexpected error (code 4999).');
  });
});
