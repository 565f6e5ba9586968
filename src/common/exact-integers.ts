const NUMBER_LITERAL = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Whether a JSON number literal is exactly an integer: `7.0` and `0.7e1` are; `7.000000000000000001` is not (JSON.parse reads 7). */
export function isIntegerLiteral(source: string): boolean {
  const match = NUMBER_LITERAL.exec(source);
  if (!match) return false;
  const [, whole, fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  return point >= digits.length || /^0*$/.test(digits.slice(Math.max(0, point)));
}

/** JSON.parse reviver: an integer rounded from a non-integer literal becomes NaN (reads `context.source`, Node 21+). */
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

/** Outside strings, `.` only appears in numbers, and `e` or `E` right after a digit only in an exponent. */
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

/** Rounded non-integer literals become NaN, so an integer field refuses them (4000) rather than take another value; input too deep for a reviver is left to the pipe's depth check. */
export function withExactIntegers(parsed: unknown, text: () => string): unknown {
  if (!holdsInteger(parsed)) return parsed;
  try {
    const source = text();
    return writesFractionOrExponent(source) ? (JSON.parse(source, exactIntegers) as unknown) : parsed;
  } catch {
    return parsed;
  }
}
