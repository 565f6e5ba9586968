import { setTimeout as sleep } from 'node:timers/promises';
import type { MetricsService } from '../observability/metrics.service';
import type { ChangeLogRepository } from './change-log.repository';

/** How often a write waiting for the other instances to read its event asks how far they are. */
const READERS_CHECK_MS = 5;

/** The writes of one instance waiting for every other live reader of the change log (change_log_readers) to read their events. */
export class OtherReaders {
  private waiting: { sequence: bigint; started: number; done: () => void }[] = [];
  private watching = false;

  constructor(
    private readonly repository: ChangeLogRepository,
    private readonly metrics: MetricsService,
    private readonly reader: string,
    private readonly deafAfterMs: number,
  ) {}

  /** Once every other instance that said it reads within CHANGES_DEAF_AFTER_MS has read up to `sequence`. */
  read(sequence: bigint): Promise<void> {
    return new Promise((done) => {
      this.waiting.push({ sequence, started: performance.now(), done });
      if (!this.watching) void this.watch();
    });
  }

  /** One loop for all waiting writes; never longer than CHANGES_DEAF_AFTER_MS (a silent reader is no longer live), and a failed check answers them: they committed. */
  private async watch(): Promise<void> {
    this.watching = true;
    try {
      while (this.waiting.length > 0) {
        let slowest: bigint | null | undefined;
        try {
          const cursor = await this.repository.slowestOtherReader(this.reader, this.deafAfterMs);
          slowest = cursor === null ? null : BigInt(cursor);
        } catch {
          slowest = undefined;
        }
        const now = performance.now();
        this.waiting = this.waiting.filter((write) => {
          const result = slowest === undefined ? 'unknown' : slowest === null || slowest >= write.sequence ? 'read' : now - write.started > this.deafAfterMs ? 'timeout' : null;
          if (result === null) return true;
          this.metrics.changeLogAckWaits.observe({ result }, (now - write.started) / 1000);
          write.done();
          return false;
        });
        if (this.waiting.length > 0) await sleep(READERS_CHECK_MS);
      }
    } finally {
      this.watching = false;
    }
  }
}
