import { describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { sessionDefaults } from '../src/database/data-source-options';
import { createTestDatabase } from './support/test-app';

/** Instances starting at once set their role's timeouts at once: none may fail (the first settings row is inserted once). */
describe('the role timeouts instances set at start', () => {
  it('are set by 6 sessions at once on a database that has none, 5 times over', async () => {
    for (let round = 0; round < 5; round++) {
      const database = await createTestDatabase();
      const clients = Array.from({ length: 6 }, () => new pg.Client({ connectionString: database.url }));
      try {
        await Promise.all(clients.map((client) => client.connect()));
        const outcomes = await Promise.allSettled(clients.map((client) => client.query(sessionDefaults(2_000))));
        expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
        const [{ timeout }] = (await clients[0].query('SELECT current_setting(\'statement_timeout\') AS timeout')).rows;
        expect(timeout).toBe('2s');
      } finally {
        await Promise.all(clients.map((client) => client.end().catch(() => undefined)));
        await database.drop();
      }
    }
  });
});
