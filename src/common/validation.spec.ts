import { describe, expect, it } from '@jest/globals';
import { validateSync } from 'class-validator';
import { codePoints, decimalsUpTo, NAME_PATTERN, NEW_SLUG_PATTERN, TextLength, VisibleText } from './validation';

class Text {
  @TextLength(1, 4)
  value!: string;
}

const accepts = (value: string) => {
  const text = new Text();
  text.value = value;
  return validateSync(text).length === 0;
};

class Name {
  @VisibleText()
  value!: string;
}

const visible = (value: string) => {
  const name = new Name();
  name.value = value;
  return validateSync(name).length === 0;
};

describe('VisibleText and the name and new-slug patterns', () => {
  // What Unicode says does not show: controls, format characters, line and paragraph separators,
  // and default-ignorable code points.
  const doesNotShow = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;
  const patterns = [new RegExp(NAME_PATTERN, 'u'), new RegExp(NEW_SLUG_PATTERN, 'u')];

  it('refuse inside a text exactly the characters of the first plane that Unicode says do not show', () => {
    const wrong: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCharCode(code);
      const text = `a${character}b`;
      const shows = !doesNotShow.test(character);
      if (visible(text) !== shows || patterns.some((pattern) => pattern.test(text) !== shows)) wrong.push(code.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  it('refuse what looked alike before: a Hangul filler, a variation selector, a line separator, a grapheme joiner', () => {
    for (const text of ['ann\u3164', 'ann\ufe0f', 'ann\u2028lee', 'a\u034fnn', 'ann\u115f']) expect(visible(text)).toBe(false);
    expect(visible('Zoë Ångström 李 😀')).toBe(true);
  });
});

describe('codePoints', () => {
  it('counts a surrogate pair once and a variation selector as a character, as JSON Schema does', () => {
    expect(codePoints('')).toBe(0);
    expect(codePoints('abc')).toBe(3);
    expect(codePoints('\u{1F600}')).toBe(1);
    expect(codePoints('\u{1F600}\uFE0F')).toBe(2);
    expect(codePoints('\u2019x')).toBe(2);
  });
});

describe('TextLength', () => {
  it('caps the length in code points', () => {
    expect(accepts('abcd')).toBe(true);
    expect(accepts('abcde')).toBe(false);
    expect(accepts('\u{1F600}'.repeat(4))).toBe(true);
    // class-validator's Length counted this as 2 (it skips variation selectors).
    expect(accepts('\u{1F600}\uFE0F'.repeat(2) + 'x')).toBe(false);
  });

  it('wants at least `min` code points', () => {
    expect(accepts('')).toBe(false);
    expect(accepts('\u{1F600}')).toBe(true);
  });
});

describe('decimalsUpTo', () => {
  it.each([1, 9, 10, 19, 100, 347, 1000, 9071, 10_000])('matches exactly 1 to %i, without leading zeros', (max) => {
    const pattern = new RegExp(decimalsUpTo(max));
    // The numbers it judges wrongly, asserted once: an expect per number took half a second a case.
    const wrong: number[] = [];
    for (let n = 0; n <= 12_000; n++) if (pattern.test(String(n)) !== (n >= 1 && n <= max)) wrong.push(n);
    expect(wrong).toEqual([]);
    expect(pattern.test('01')).toBe(false);
    expect(pattern.test('')).toBe(false);
  });

  it('matches leading zeros when asked to', () => {
    const pattern = new RegExp(decimalsUpTo(347, { leadingZeros: true }));
    for (const id of ['1', '01', '0001', '347', '000347']) expect([id, pattern.test(id)]).toEqual([id, true]);
    for (const id of ['', '0', '000', '348', '0348', '1.0', ' 1']) expect([id, pattern.test(id)]).toEqual([id, false]);
  });

  it('matches 1 to 2^53-1', () => {
    const pattern = new RegExp(decimalsUpTo(Number.MAX_SAFE_INTEGER));
    for (const id of ['1', '999999999999999', '1000000000000000', '8999999999999999', '9007199254740990', '9007199254740991']) expect([id, pattern.test(id)]).toEqual([id, true]);
    for (const id of ['0', '9007199254740992', '9007199254740999', '9007199254741000', '9100000000000000', '10000000000000000', '-1', '1.0']) expect([id, pattern.test(id)]).toEqual([id, false]);
  });
});
