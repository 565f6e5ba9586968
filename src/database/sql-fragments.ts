/** RFC 3339, UTC, millisecond precision: the same text as JavaScript's toISOString(). */
export const rfc3339 = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** An ILIKE pattern matching `text` literally anywhere: its `%`, `_` and `\` are no wildcards. */
export const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/** `column IN ('a', 'b')` for a declared list of values (a CHECK constraint's condition). */
export const isOneOf = (column: string, values: readonly string[]) => `${column} IN (${values.map((value) => `'${value}'`).join(', ')})`;
