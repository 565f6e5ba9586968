import { describe, expect, it } from '@jest/globals';
import { ApiError } from '../common/error-catalogue';
import { assertCanSubmitDispute, assertDecidable, partnerFinalVerdict } from './dispute-state';

function codeOf(check: () => void): number | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    return (error as ApiError).code;
  }
}

describe('assertCanSubmitDispute', () => {
  const resolved = { source: 'acme', status: 'resolved' as const, hasDispute: false };

  it('allows a dispute on a resolved, undisputed market of the same source', () => {
    expect(codeOf(() => assertCanSubmitDispute('acme', resolved))).toBeUndefined();
  });

  it('checks the source before anything else', () => {
    expect(codeOf(() => assertCanSubmitDispute('other', { ...resolved, status: 'monitoring', hasDispute: true }))).toBe(4030);
  });

  it('reports an existing dispute before the market state', () => {
    expect(codeOf(() => assertCanSubmitDispute('acme', { ...resolved, status: 'disputed', hasDispute: true }))).toBe(4091);
    expect(codeOf(() => assertCanSubmitDispute('acme', { ...resolved, status: 'closed', hasDispute: true }))).toBe(4091);
  });

  it.each(['monitoring', 'disputed', 'closed'] as const)('rejects a %s market without a dispute', (status) => {
    expect(codeOf(() => assertCanSubmitDispute('acme', { ...resolved, status }))).toBe(4090);
  });
});

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
