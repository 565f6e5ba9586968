import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../common/error-catalogue';
import { RefusalRevealingChange } from '../changes/revealed-change';
import { assertDecidable, assertFileable, partnerFinalVerdict } from './dispute-state';

function codeOf(check: () => void): number | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return (error as ApiError).code;
  }
}

const market = { source: 'acme', slug: 'btc-100k' };

describe('assertFileable', () => {
  it("files on the partner's own resolved market only, in the contract's order: source, dispute, state", () => {
    expect(codeOf(() => assertFileable({ ...market, status: 'resolved' }, 'acme'))).toBeUndefined();
    expect(codeOf(() => assertFileable({ ...market, status: 'disputed' }, 'other'))).toBe(4030);
    expect(codeOf(() => assertFileable({ ...market, status: 'disputed' }, 'acme'))).toBe(4091);
    expect(codeOf(() => assertFileable({ ...market, status: 'closed' }, 'acme'))).toBe(4091);
    expect(codeOf(() => assertFileable({ ...market, status: 'monitoring' }, 'acme'))).toBe(4090);
  });

  it('names the market of a 4091, whose answer tells of a committed filing', () => {
    try {
      assertFileable({ ...market, status: 'disputed' }, 'acme');
    } catch (error) {
      expect(error).toBeInstanceOf(RefusalRevealingChange);
      expect((error as RefusalRevealingChange).market).toEqual(expect.objectContaining(market));
    }
    expect.assertions(2);
  });
});

describe('assertDecidable', () => {
  it('allows an open dispute and rejects a closed one, naming its market', () => {
    expect(codeOf(() => assertDecidable('open', market))).toBeUndefined();
    expect(codeOf(() => assertDecidable('closed', market))).toBe(4092);
  });
});

describe('partnerFinalVerdict', () => {
  it('is the submitter selection on override and the market verdict on keep', () => {
    expect(partnerFinalVerdict('override', 'NO', 'YES')).toBe('NO');
    expect(partnerFinalVerdict('keep', 'NO', 'YES')).toBe('YES');
  });
});
