const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** For the OpenAPI document beside `format: date-time`: RFC 3339 allows year 0000, which no timestamp here holds. */
export const YEARS_0001_TO_9999 = '^(?:[0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})-';

/** The instant an RFC 3339 timestamp names (any number of fraction digits, kept to the millisecond), or undefined if `value` is not one. */
export function parseRfc3339(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const match = RFC3339.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60 || offsetHours > 23 || offsetMinutes > 59) {
    return undefined;
  }
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth || year < 1) return undefined;
  const instant = new Date(value.toUpperCase().replace(' ', 'T').replace(/:60(\.|Z|[+-])/, ':59$1'));
  if (Number.isNaN(instant.getTime())) return undefined;
  // In UTC, as it is stored and served, it must still have a four-digit year.
  const utcYear = instant.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? instant : undefined;
}
