import { describe, expect, it } from '@jest/globals';
import { validateSync } from 'class-validator';
import { codePoints, TextLength } from './validation';

class Text {
  @TextLength(1, 4)
  value!: string;
}

const accepts = (value: string) => {
  const text = new Text();
  text.value = value;
  return validateSync(text).length === 0;
};

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
