import { describe, expect, it } from '@jest/globals';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logDestination } from './logging';

describe('logDestination', () => {
  it('has written each line when write returns: no line waits in memory (here, to a file)', () => {
    const folder = mkdtempSync(join(tmpdir(), 'log-destination-'));
    const fd = openSync(join(folder, 'out.log'), 'w');
    try {
      const destination = logDestination(fd);
      const line = `${JSON.stringify({ level: 30, msg: 'GET /oracle/markets/public completed', pad: 'x'.repeat(300) })}\n`;
      // As many lines as a busy second of requests, with no turn of the event loop between.
      for (let i = 0; i < 5000; i++) destination.write(line);
      expect(readFileSync(join(folder, 'out.log'), 'utf8')).toBe(line.repeat(5000));
    } finally {
      closeSync(fd);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
