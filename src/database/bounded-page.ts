import { raw, sql, type Statement } from './sql';

/** The most JSON one page of a back-office list carries, whatever its `limit`. */
export const PAGE_BYTES = 256 * 1024;

/** `pageSql` selects `item` JSON, `id` and the `orderBy` columns, one row past the page; cut where items pass PAGE_BYTES, keeping at least one row. */
export function boundedPage<T>(pageSql: Statement, orderBy: string): Statement<PageRow<T>> {
  const order = raw(orderBy);
  return sql<PageRow<T>>`SELECT id, item, found FROM (
    SELECT *, count(*) OVER () AS found,
      sum(octet_length(item::text)) OVER (ORDER BY ${order} ROWS UNBOUNDED PRECEDING) - octet_length(item::text) AS before
    FROM (${pageSql}) page) sized
  WHERE before < ${raw(String(PAGE_BYTES))} ORDER BY ${order}`;
}

export interface PageRow<T> {
  id: string;
  item: T;
  found: string;
}

/** A page of a listing: its items, whether more follow, and its last row's id (the keyset a cursor names). */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
  /** For items that do not show their id. */
  lastId: string | null;
}

/** The page of `limit` a boundedPage statement's rows make: more follow past the limit or the budget. */
export function pageOf<T>(rows: PageRow<T>[], limit: number): Page<T> {
  const found = rows.length === 0 ? 0 : Number(rows[0].found);
  const kept = rows.slice(0, limit);
  return { items: kept.map((row) => row.item), hasMore: found > limit || rows.length < found, lastId: kept.at(-1)?.id ?? null };
}
