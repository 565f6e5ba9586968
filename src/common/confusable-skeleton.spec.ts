import { describe, expect, it } from '@jest/globals';
import { caselessNameSkeletons, skeleton, skeletonIgnoringCase, toStored } from './confusable-skeleton';

const CAFE_NFC = 'caf\u00e9';
const CAFE_NFD = 'cafe\u0301';

describe('skeleton', () => {
  it.each([
    ['m\u0430ster (Cyrillic а)', 'master', 'm\u0430ster', 'master'],
    ['\uff4daster (fullwidth m)', 'master', '\uff4daster', 'master'],
    ['\u{1d5fa}aster (mathematical bold m)', 'master', '\u{1d5fa}aster', 'master'],
    ['p\u0430ypal (Cyrillic а)', 'paypal', 'p\u0430ypal', 'paypal'],
    ['café in NFD', 'café in NFC', CAFE_NFD, CAFE_NFC],
    ['acme1 (digit one)', 'acmel', 'acme1', 'acmel'],
    ['rnaster', 'master (Unicode reads m as rn)', 'rnaster', 'master'],
    ['acme and a zero-width space', 'acme', 'acme\u200b', 'acme'],
  ])('%s reads as %s', (_, __, text, lookalike) => {
    expect(skeleton(text)).toBe(skeleton(lookalike));
  });

  it.each([
    ['a letter case', 'ACME', 'acme'],
    ['an accent', CAFE_NFC, 'cafe'],
    ['a letter', 'alice', 'alicia'],
    ['vv, which Unicode does not read as w', 'vv', 'w'],
  ])('tells apart texts differing by %s', (_, one, other) => {
    expect(skeleton(one)).not.toBe(skeleton(other));
  });

  it("is Unicode's data, as the library has it: m is rn, 1 and I are l, 0 is O", () => {
    expect(skeleton('m')).toBe('rn');
    expect([skeleton('1'), skeleton('I'), skeleton('0')]).toEqual(['l', 'l', 'O']);
    expect(skeleton(skeleton('ｍaster'))).toBe(skeleton('ｍaster'));
  });
});

describe('skeletonIgnoringCase', () => {
  it('takes MASTER, mаster and ｍaster for master', () => {
    for (const name of ['MASTER', 'Master', 'm\u0430ster', '\uff4daster', 'M\u0430STER']) {
      expect(skeletonIgnoringCase(name)).toBe(skeletonIgnoringCase('master'));
    }
  });

  it('folds case before the confusables, so Ian is ian and not lan', () => {
    expect(skeletonIgnoringCase('Ian')).toBe(skeletonIgnoringCase('ian'));
    expect(skeletonIgnoringCase('Ian')).not.toBe(skeletonIgnoringCase('lan'));
  });

  it('tells apart names that read differently', () => {
    expect(skeletonIgnoringCase('Zoë')).not.toBe(skeletonIgnoringCase('Zoe'));
    expect(skeletonIgnoringCase('noor')).not.toBe(skeletonIgnoringCase('nour'));
  });
});

describe('caselessNameSkeletons', () => {
  // Neither skeleton alone: Cyrillic М lowercases to м, which reads as no Latin letter, and I reads as l only as written.
  it('has МIKEY (Cyrillic М) beside MIKEY by the name as written, and Ian beside ian by the caseless one', () => {
    const [mikey, cyrillicMikey] = [caselessNameSkeletons('MIKEY'), caselessNameSkeletons('\u041cIKEY')];
    expect(cyrillicMikey.written).toBe(mikey.written);
    expect(cyrillicMikey.caseless).not.toBe(mikey.caseless);
    const [ian, capitalIan] = [caselessNameSkeletons('ian'), caselessNameSkeletons('Ian')];
    expect(capitalIan.caseless).toBe(ian.caseless);
    expect(capitalIan.written).not.toBe(ian.written);
  });
});

describe('toStored', () => {
  it('is NFC: café in one code point, whichever way it came', () => {
    expect(toStored(CAFE_NFD)).toBe(CAFE_NFC);
    expect(toStored(CAFE_NFC)).toBe(CAFE_NFC);
  });
});
