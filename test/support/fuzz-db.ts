import pg from 'pg';

/**
 * Every table a request can write (src/database/migrations), read row by row. The only column
 * left out is api_keys.last_used_at: authentication refreshes it on purpose (at most once a
 * minute per key, fire-and-forget), whatever the request's outcome.
 */
export const MUTABLE_TABLES = ['partners', 'api_keys', 'markets', 'proofs', 'disputes', 'reviewers', 'audit_events'] as const;
export type Table = (typeof MUTABLE_TABLES)[number];

export type Row = Record<string, unknown>;
export type Snapshot = { fingerprint: string; tables: Record<Table, Map<string, Row>> };

export interface RowChange {
  table: Table;
  id: string;
  kind: 'added' | 'removed' | 'changed';
  before?: Row;
  after?: Row;
}

const rowJson = (table: Table) => (table === 'api_keys' ? `(to_jsonb(t) - 'last_used_at')` : 'to_jsonb(t)');

// One round trip: a digest of every table's rows (in id order), so an unchanged database
// costs one cheap query per request; the rows themselves only when the digest moved.
const FINGERPRINT_SQL = `SELECT md5(${MUTABLE_TABLES.map(
  (table) => `coalesce((SELECT string_agg(${rowJson(table)}::text, E'\\n' ORDER BY t.id) FROM ${table} t), '')`,
).join(` || E'\\n--\\n' || `)}) AS fingerprint`;

const ROWS_SQL = `SELECT ${MUTABLE_TABLES.map(
  (table) => `(SELECT coalesce(jsonb_agg(${rowJson(table)} ORDER BY t.id), '[]'::jsonb) FROM ${table} t) AS ${table}`,
).join(', ')}`;

export class DatabaseWatcher {
  private constructor(private readonly client: pg.Client) {}

  static async connect(url: string): Promise<DatabaseWatcher> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new DatabaseWatcher(client);
  }

  close(): Promise<void> {
    return this.client.end();
  }

  query<T extends pg.QueryResultRow = Row>(text: string, values: unknown[] = []): Promise<T[]> {
    return this.client.query<T>(text, values).then((result) => result.rows);
  }

  async fingerprint(): Promise<string> {
    const [{ fingerprint }] = await this.query<{ fingerprint: string }>(FINGERPRINT_SQL);
    return fingerprint;
  }

  async snapshot(): Promise<Snapshot> {
    // Both in one transaction, so digest and rows describe the same state.
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    try {
      const fingerprint = await this.fingerprint();
      const [rows] = await this.query<Record<Table, Row[]>>(ROWS_SQL);
      const tables = {} as Record<Table, Map<string, Row>>;
      for (const table of MUTABLE_TABLES) tables[table] = new Map(rows[table].map((row) => [String(row.id), row]));
      return { fingerprint, tables };
    } finally {
      await this.client.query('COMMIT');
    }
  }
}

export function diffSnapshots(before: Snapshot, after: Snapshot): RowChange[] {
  const changes: RowChange[] = [];
  for (const table of MUTABLE_TABLES) {
    const old = before.tables[table];
    const now = after.tables[table];
    for (const [id, row] of now) {
      const previous = old.get(id);
      if (!previous) changes.push({ table, id, kind: 'added', after: row });
      else if (JSON.stringify(previous) !== JSON.stringify(row)) changes.push({ table, id, kind: 'changed', before: previous, after: row });
    }
    for (const [id, row] of old) if (!now.has(id)) changes.push({ table, id, kind: 'removed', before: row });
  }
  return changes;
}

/** A short, readable account of the changes, for failure messages. */
export function describeChanges(changes: RowChange[]): string {
  return changes
    .map((change) => `${change.kind} ${change.table}#${change.id}: ${JSON.stringify(change.after ?? change.before).slice(0, 300)}`)
    .join('\n');
}
