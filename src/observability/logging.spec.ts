import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryFailedError } from 'typeorm';
import { droppedLogLines, logDestination, loggedError, readsAsText } from './logging';

const LINE = `${JSON.stringify({ level: 30, msg: 'GET /oracle/markets/public completed', pad: 'x'.repeat(300) })}\n`;

type Destination = NodeJS.WritableStream & { flushSync(): void; destroy(): void };

function withFile(test: (destination: Destination, read: () => string) => Promise<void>) {
  return async () => {
    const folder = mkdtempSync(join(tmpdir(), 'log-destination-'));
    const fd = openSync(join(folder, 'out.log'), 'w');
    const destination = logDestination(fd) as unknown as Destination;
    try {
      await test(destination, () => readFileSync(join(folder, 'out.log'), 'utf8'));
    } finally {
      destination.destroy(); // closes the file
      await sleep(50);
      rmSync(folder, { recursive: true, force: true });
    }
  };
}

describe('logDestination', () => {
  it(
    'writes lines in batches, and the last ones within the flush interval',
    withFile(async (destination, read) => {
      for (let i = 0; i < 100; i++) destination.write(LINE);
      await sleep(400);
      expect(read()).toBe(LINE.repeat(100));
      destination.write(LINE);
      destination.flushSync();
      expect(read()).toBe(LINE.repeat(101));
    }),
  );

  it(
    'holds a bounded amount when nothing drains it, and counts what it drops',
    withFile(async (destination, read) => {
      const before = droppedLogLines();
      // As many lines as a busy minute, with no turn of the event loop for the writes to complete.
      for (let i = 0; i < 40_000; i++) destination.write(LINE);
      expect(droppedLogLines()).toBeGreaterThan(before);
      await sleep(400);
      expect(read().length).toBeLessThanOrEqual(4 * 1024 * 1024 + 16 * 1024);
    }),
  );
});

describe('loggedError', () => {
  it("keeps what says what failed, and none of the data PostgreSQL's detail and the statement's values quote", () => {
    const driverError = Object.assign(new Error('new row for relation "disputes" violates check constraint "short_names"'), {
      code: '23514',
      constraint: 'short_names',
      detail: 'Failing row contains (7, Ann Privateperson, a private reason).',
    });
    const error = new QueryFailedError('SELECT * FROM file_dispute($1, $2)', ['Ann Privateperson', 'a private reason'], driverError);
    const logged = loggedError(error);
    expect(JSON.stringify(logged)).not.toMatch(/Privateperson|private reason/);
    expect(logged).toMatchObject({
      type: 'QueryFailedError',
      message: 'new row for relation "disputes" violates check constraint "short_names"',
      code: '23514',
      constraint: 'short_names',
      query: 'SELECT * FROM file_dispute($1, $2)',
      driverError: { type: 'Error', code: '23514', constraint: 'short_names' },
      stack: expect.any(String),
    });
    expect(error.parameters).toHaveLength(2); // the error itself is left as it was
    expect(loggedError('a string')).toBe('a string');
  });
});

describe('readsAsText', () => {
  const config = ({ LOG_FORMAT, DATABASE_URL }: { LOG_FORMAT: string; DATABASE_URL?: string }) => ({ level: 'info', format: LOG_FORMAT, zeroSetup: !DATABASE_URL });

  it('is text in the zero-setup mode on a terminal by default, JSON otherwise, and what LOG_FORMAT says when it says it', () => {
    const tty = process.stdout.isTTY;
    try {
      process.stdout.isTTY = true;
      expect(readsAsText(config({ LOG_FORMAT: 'auto' }))).toBe(true);
      expect(readsAsText(config({ LOG_FORMAT: 'auto', DATABASE_URL: 'postgres://db/x' }))).toBe(false);
      expect(readsAsText(config({ LOG_FORMAT: 'json' }))).toBe(false);
      process.stdout.isTTY = false;
      expect(readsAsText(config({ LOG_FORMAT: 'auto' }))).toBe(false);
      expect(readsAsText(config({ LOG_FORMAT: 'pretty', DATABASE_URL: 'postgres://db/x' }))).toBe(true);
    } finally {
      process.stdout.isTTY = tty;
    }
  });
});
