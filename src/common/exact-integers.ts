const NUMBER_LITERAL = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether a JSON number literal names an integer exactly: once its exponent is applied, no digit
 * after the decimal point is other than 0 (`7`, `7.0`, `7e0` and `0.7e1` do; `7.000000000000000001`
 * does not, although JSON.parse reads it as 7).
 */
export function isIntegerLiteral(source: string): boolean {
  const match = NUMBER_LITERAL.exec(source);
  if (!match) return false;
  const [, whole, fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  return point >= digits.length || /^0*$/.test(digits.slice(Math.max(0, point)));
}

/**
 * A JSON.parse reviver: a number that JSON.parse rounded to an integer from a literal that is not
 * one (`0.99999999999999999999` is read as 1) becomes NaN. Every other value is as JSON.parse read
 * it. The literal is the reviver's `context.source` (Node 21 and later).
 */
export function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || !Number.isInteger(value)) return value;
  const source = context?.source;
  if (source === undefined || !/[.eE]/.test(source)) return value;
  return isIntegerLiteral(source) ? value : NaN;
}

/** Whether `value` holds an integer number anywhere (iteratively: any depth). */
function holdsInteger(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'number' && Number.isInteger(item)) return true;
    if (typeof item === 'object' && item !== null) for (const member of Object.values(item)) pending.push(member);
  }
  return false;
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Whether JSON `text` writes a number with a fraction or an exponent. Outside strings, `.` only
 * appears in numbers, and `e` or `E` right after a digit only in a number's exponent.
 */
export function writesFractionOrExponent(text: string): boolean {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92) i++; // a backslash escapes the next character
      else if (code === 34) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 46 || ((code === 101 || code === 69) && isDigit(text.charCodeAt(i - 1)))) return true;
  }
  return false;
}

/**
 * `parsed` (JSON.parse's reading of `text()`), with every integer that JSON.parse rounded from a
 * literal that is not one made NaN, so that a field wanting an integer refuses it (4000) instead of
 * taking another value (market 1) for it. Only a body holding an integer, and a number written
 * with a fraction or an exponent, is read again, with exactIntegers; one nested too deeply for a
 * reviver (whose recursion overflows the stack in the thousands of levels) is left as read: the
 * validation pipe refuses it for its depth.
 */
export function withExactIntegers(parsed: unknown, text: () => string): unknown {
  if (!holdsInteger(parsed)) return parsed;
  try {
    const source = text();
    return writesFractionOrExponent(source) ? (JSON.parse(source, exactIntegers) as unknown) : parsed;
  } catch {
    return parsed;
  }
}
