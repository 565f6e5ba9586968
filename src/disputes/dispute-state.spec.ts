import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../common/error-catalogue';
import { assertDecidable, partnerFinalVerdict } from './dispute-state';

function codeOf(check: () => void): number | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return (error as ApiError).code;
  }
}

describe('assertDecidable', () => {
  it('allows an open dispute and rejects a closed one', () => {
    expect(codeOf(() => assertDecidable('open'))).toBeUndefined();
    expect(codeOf(() => assertDecidable('closed'))).toBe(4092);
  });
});

describe('partnerFinalVerdict', () => {
  it('is the submitter selection on override and the market verdict on keep', () => {
    expect(partnerFinalVerdict('override', 'NO', 'YES')).toBe('NO');
    expect(partnerFinalVerdict('keep', 'NO', 'YES')).toBe('YES');
  });
});
