import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Sql, sql } from './sql';

/** TypeORM's QueryRunner as Sql uses it: answers every statement but those holding `fails`, and records what it was sent. */
function fakeRunner(fails?: { text: string; error: Error }) {
  const client = { ended: false, end: async () => void (client.ended = true) };
  const runner = {
    sent: [] as { text: string; values?: unknown[] }[],
    released: false,
    isTransactionActive: false,
    manager: {} as { queryRunner?: unknown },
    connect: async () => client,
    client,
    async query(text: string, values?: unknown[]) {
      runner.sent.push({ text, values });
      if (fails && text.includes(fails.text)) throw fails.error;
      return { records: [{ n: 1 }] };
    },
    async startTransaction() {
      runner.isTransactionActive = true;
      await runner.query('START TRANSACTION');
    },
    async commitTransaction() {
      await runner.query('COMMIT');
      runner.isTransactionActive = false;
    },
    async rollbackTransaction() {
      await runner.query('ROLLBACK');
      runner.isTransactionActive = false;
    },
    release: async () => void (runner.released = true),
  };
  runner.manager.queryRunner = runner;
  return runner;
}

async function sqlOn(runner: ReturnType<typeof fakeRunner>) {
  const module = await Test.createTestingModule({
    providers: [Sql, { provide: getDataSourceToken(), useValue: { createQueryRunner: () => runner } }],
  }).compile();
  return { sql: module.get(Sql) };
}

describe('Sql', () => {
  it('sends a tagged statement unnamed, its values bound, and gives the connection back', async () => {
    const runner = fakeRunner();
    const { sql: database } = await sqlOn(runner);
    expect(await database.rows(sql`SELECT ${1} AS n WHERE ${'a'} <> ${'b'}`)).toEqual([{ n: 1 }]);
    expect(runner.sent).toEqual([{ text: 'SELECT $1 AS n WHERE $2 <> $3', values: [1, 'a', 'b'] }]);
    expect(runner.released).toBe(true);
  });

  it('runs a transaction on one connection: committed, or rolled back and the error thrown', async () => {
    const runner = fakeRunner({ text: 'INSERT', error: Object.assign(new Error('duplicate key'), { code: '23505' }) });
    const { sql: database } = await sqlOn(runner);
    expect(await database.transaction((tx) => database.rows(sql`SELECT 1`, tx))).toEqual([{ n: 1 }]);
    await expect(database.transaction((tx) => database.rows(sql`INSERT INTO t VALUES (${1})`, tx))).rejects.toMatchObject({ code: '23505' });
    expect(runner.sent.map(({ text }) => text)).toEqual(['START TRANSACTION', 'SELECT 1', 'COMMIT', 'START TRANSACTION', 'INSERT INTO t VALUES ($1)', 'ROLLBACK']);
    expect(runner.client.ended).toBe(false);
  });

  it('ends a connection whose statement the server left unanswered, instead of queueing a ROLLBACK behind it', async () => {
    const runner = fakeRunner({ text: 'UPDATE', error: new Error('Query read timeout') });
    const { sql: database } = await sqlOn(runner);
    await expect(database.transaction((tx) => database.rows(sql`UPDATE t SET n = 2`, tx))).rejects.toThrow('Query read timeout');
    expect(runner.sent.map(({ text }) => text)).toEqual(['START TRANSACTION', 'UPDATE t SET n = 2']);
    expect(runner.client.ended).toBe(true);
    expect(runner.released).toBe(true);
  });
});
