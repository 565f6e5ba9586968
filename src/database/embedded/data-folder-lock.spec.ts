import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataFolderLock } from './data-folder-lock';

describe('DataFolderLock', () => {
  it('names its holder, and outlives askers that go away before the answer (an EPIPE once crashed the holder)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'lock-spec-'));
    const lock = await DataFolderLock.acquire(folder);
    try {
      await expect(DataFolderLock.holder(folder)).resolves.toBe(String(process.pid));
      const uncaught: unknown[] = [];
      const record = (error: unknown) => uncaught.push(error);
      process.on('uncaughtException', record);
      try {
        for (let i = 0; i < 50; i++) connect(join(folder, '.server.lock')).on('error', () => undefined).destroy();
        await sleep(200);
      } finally {
        process.off('uncaughtException', record);
      }
      expect(uncaught).toEqual([]);
      await expect(DataFolderLock.holder(folder)).resolves.toBe(String(process.pid));
    } finally {
      await lock.release();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
