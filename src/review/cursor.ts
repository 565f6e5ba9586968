import { ApiError, ErrorCatalogue } from '../common/error-catalogue';

const MAX_BIGINT = 9223372036854775807n;

/** A page's size when the query names none. */
export const DEFAULT_PAGE_SIZE = 20;

/**
 * Keyset cursors: an opaque token naming the last row id a page showed. Opaque so clients
 * do not build them, stable because ids never change.
 */
export function encodeCursor(lastId: string | number): string {
  return Buffer.from(`id:${lastId}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const decoded = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^id:([1-9]\d{0,18})$/.exec(decoded);
  // Ids are bigint: a larger number was never issued (and PostgreSQL would reject it, → 5000).
  if (!match || BigInt(match[1]) > MAX_BIGINT) {
    throw new ApiError(ErrorCatalogue.INVALID_REQUEST, 'cursor is not a cursor this service issued');
  }
  return match[1];
}

/** The id a query's optional `cursor` names (4000 for a token this service did not issue). */
export function idAfterCursor(cursor: string | undefined): string | undefined {
  return cursor === undefined ? undefined : decodeCursor(cursor);
}

/** The `next_cursor` of a page: the last row's id while more rows follow, else null. */
export function nextCursor(rows: readonly { id: string | number }[], hasMore: boolean): string | null {
  return hasMore && rows.length > 0 ? encodeCursor(rows[rows.length - 1].id) : null;
}
