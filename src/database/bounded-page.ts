/** The most JSON one page of a back-office list carries, whatever its `limit`. */
export const PAGE_BYTES = 256 * 1024;

/**
 * A page query cut where its items pass PAGE_BYTES of JSON: `pageSql` selects `item` (JSON) and
 * the columns `orderBy` names (e.g. `id DESC`), ordered so and limited to one row more than the
 * page; the rows kept are those that begin before the budget is spent (so at least one), and
 * each tells how many the page query found. A hundred records of the longest texts the API takes
 * are ~9 MB: a few such pages at once took more than the heap.
 */
export function boundedPage(pageSql: string, orderBy: string): string {
  return `SELECT item, found FROM (
    SELECT *, count(*) OVER () AS found,
      sum(octet_length(item::text)) OVER (ORDER BY ${orderBy} ROWS UNBOUNDED PRECEDING) - octet_length(item::text) AS before
    FROM (${pageSql}) page) sized
  WHERE before < ${PAGE_BYTES} ORDER BY ${orderBy}`;
}

/** The items of a bounded page of `limit`, and whether more follow (past the limit or the budget). */
export function pageOf<T>(rows: { item: T; found: string | number }[], limit: number): { items: T[]; hasMore: boolean } {
  const found = rows.length === 0 ? 0 : Number(rows[0].found);
  return { items: rows.slice(0, limit).map((row) => row.item), hasMore: found > limit || rows.length < found };
}
