import { ApiError, ErrorCatalogue } from './error-catalogue';

/** A page's size when the query names none (contract §4). */
export const DEFAULT_PAGE_SIZE = 50;

/** At most 12 base-36 digits: every such token fits a bigint id (36^12 < 2^63), and the OpenAPI document can say so. */
export const CURSOR_PATTERN = '^[0-9a-z]{1,12}$';
const CURSOR = new RegExp(CURSOR_PATTERN);
/** What a token that is no cursor of this service is told (after the field's name). */
export const NOT_A_CURSOR = 'is not a cursor this service issued';

/** A keyset cursor: the page's last row id in base 36. Clients only pass back `next_cursor`; ids never change. */
export function encodeCursor(lastId: string | number | bigint): string {
  return BigInt(lastId).toString(36);
}

export function decodeCursor(cursor: string): string {
  if (!CURSOR.test(cursor)) throw new ApiError(ErrorCatalogue.INVALID_REQUEST, `cursor ${NOT_A_CURSOR}`);
  let id = 0n;
  for (const digit of cursor) id = id * 36n + BigInt(Number.parseInt(digit, 36));
  return id.toString();
}

/** The id a query's optional `cursor` names (4000 for a token this service did not issue). */
export function idAfterCursor(cursor: string | undefined): string | undefined {
  return cursor === undefined ? undefined : decodeCursor(cursor);
}

/** The `next_cursor` of a page: its last row's place while more rows follow, else null. */
export function nextCursor<Row extends { id: string | number }>(
  rows: readonly Row[],
  hasMore: boolean,
  encode: (last: Row) => string = (last) => encodeCursor(last.id),
): string | null {
  return hasMore && rows.length > 0 ? encode(rows[rows.length - 1]) : null;
}

/** The `next_cursor` of a bounded page (database/bounded-page.ts): its last row's id while more follow, else null. */
export function nextPageCursor(page: { hasMore: boolean; lastId: string | null }): string | null {
  return page.hasMore && page.lastId !== null ? encodeCursor(page.lastId) : null;
}
