import { describe, expect, it } from '@jest/globals';
import { exactIntegers, isIntegerLiteral, withExactIntegers, writesFractionOrExponent } from './exact-integers';

describe('isIntegerLiteral', () => {
  const integers = ['7', '-7', '0', '7.0', '7.000', '7e0', '7E+2', '0.7e1', '1.25e2', '0.0e5', '-0', '9007199254740991'];
  const fractions = ['7.5', '0.9999999999999999999999', '999999.0000000000001', '1e-1', '1.5e-99999999999999999999', '0.05e1', 'x'];

  it.each(integers)('%s names an integer', (literal) => {
    expect(isIntegerLiteral(literal)).toBe(true);
  });

  it.each(fractions)('%s does not', (literal) => {
    expect(isIntegerLiteral(literal)).toBe(false);
  });
});

describe('exactIntegers', () => {
  const parse = (text: string) => JSON.parse(text, exactIntegers) as Record<string, unknown>;

  it('reads a literal that JSON.parse rounds to an integer as NaN, and leaves everything else as it is', () => {
    const rounded = '{"a":0.9999999999999999999999,"b":999999.0000000000001,"c":[7.000000000000000001]}';
    expect(parse(rounded)).toEqual({ a: NaN, b: NaN, c: [NaN] });
    expect(parse('{"a":7,"b":7.0,"c":2e3,"d":1.5,"e":"0.99999999999999999999","f":null,"g":{"h":[1,true]}}')).toEqual({
      a: 7,
      b: 7,
      c: 2000,
      d: 1.5,
      e: '0.99999999999999999999',
      f: null,
      g: { h: [1, true] },
    });
  });
});

describe('writesFractionOrExponent', () => {
  it.each(['[1.5]', '{"a":1e3}', '{"a": -2E-1}', '[true,0.0]'])('%s does', (text) => {
    expect(writesFractionOrExponent(text)).toBe(true);
  });

  it.each(['{"a":1,"b":"10:00:00.000Z"}', '[true,false,null,12]', '{"a":"1e3","b\\"":"2.5"}', '{"e.":"\\"1.5"}'])('%s does not', (text) => {
    expect(writesFractionOrExponent(text)).toBe(false);
  });
});

describe('withExactIntegers', () => {
  const read = (text: string) => withExactIntegers(JSON.parse(text), () => text);

  it('reads again only a body that holds an integer, and leaves one too deep for a reviver as JSON.parse read it', () => {
    expect(read('{"market_id":0.99999999999999999999,"a":"b"}')).toEqual({ market_id: NaN, a: 'b' });
    expect(read('{"market_id":12,"at":"2026-11-21T10:00:00.000Z"}')).toEqual({ market_id: 12, at: '2026-11-21T10:00:00.000Z' });
    expect(read('{"market_id":[1e-400],"b": -7.0}')).toEqual({ market_id: [NaN], b: -7 });
    // No number written with a fraction or an exponent: not read again.
    const plain = { market_id: 12, at: '2026-11-21T10:00:00.000Z' };
    expect(withExactIntegers(plain, () => JSON.stringify(plain))).toBe(plain);
    const text = () => {
      throw new Error('read again');
    };
    expect(withExactIntegers({ a: 'b', c: [1.5, null] }, text)).toEqual({ a: 'b', c: [1.5, null] });
    const deep = `{"n":1,"d":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const parsed: unknown = JSON.parse(deep);
    expect(withExactIntegers(parsed, () => deep)).toBe(parsed);
  });
});
