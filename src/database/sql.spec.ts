import { describe, expect, it, jest } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { Pool, PoolClient } from 'pg';
import { DatabaseActivity } from './database-activity';
import { Sql, sql } from './sql';

/** A pg client that answers every statement but `fails`, and records what it was sent. */
function fakeClient(fails?: string) {
  const client = Object.assign(new EventEmitter(), {
    sent: [] as { text: string; values?: unknown[] }[],
    released: [] as unknown[],
    query: jest.fn(async (text: string, values?: unknown[]) => {
      client.sent.push({ text, values });
      if (fails && text.includes(fails)) throw Object.assign(new Error('duplicate key'), { code: '23505' });
      return { rows: [{ n: 1 }] };
    }),
    release: (error?: unknown) => void client.released.push(error),
  });
  return client;
}

const sqlOn = (client: ReturnType<typeof fakeClient>) => {
  const activity = new DatabaseActivity(1500);
  const pool = { query: client.query, connect: async () => client as unknown as PoolClient } as unknown as Pool;
  return { sql: new Sql(pool, activity), activity };
};

describe('Sql', () => {
  it('sends a tagged statement unnamed, its values bound, and hears its answer', async () => {
    const client = fakeClient();
    const { sql: database, activity } = sqlOn(client);
    expect(await database.rows(sql`SELECT ${1} AS n WHERE ${'a'} <> ${'b'}`)).toEqual([{ n: 1 }]);
    expect(client.sent).toEqual([{ text: 'SELECT $1 AS n WHERE $2 <> $3', values: [1, 'a', 'b'] }]);
    expect(activity.answeredRecently()).toBe(true);
  });

  it('runs a transaction on one connection: committed, or rolled back and the error thrown; the connection given back', async () => {
    const client = fakeClient('INSERT');
    const { sql: database } = sqlOn(client);
    expect(await database.transaction((tx) => database.rows(sql`SELECT 1`, tx))).toEqual([{ n: 1 }]);
    await expect(database.transaction((tx) => database.rows(sql`INSERT INTO t VALUES (${1})`, tx))).rejects.toMatchObject({ code: '23505' });
    expect(client.sent.map(({ text }) => text)).toEqual(['BEGIN', 'SELECT 1', 'COMMIT', 'BEGIN', 'INSERT INTO t VALUES ($1)', 'ROLLBACK']);
    expect(client.released).toEqual([undefined, undefined]);
  });

  it('destroys a connection that failed while the transaction held it', async () => {
    const client = fakeClient();
    const { sql: database } = sqlOn(client);
    const lost = new Error('Connection terminated unexpectedly');
    await expect(
      database.transaction(async () => {
        client.emit('error', lost);
        throw lost;
      }),
    ).rejects.toBe(lost);
    expect(client.sent.map(({ text }) => text)).toEqual(['BEGIN']);
    expect(client.released).toEqual([lost]);
  });
});
