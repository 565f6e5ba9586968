import { setTimeout as sleep } from 'node:timers/promises';

/** Jobs one fetch takes at most. */
const FETCH_MAX = 100;
/** How often an idle loop looks for jobs (retries come due, other instances' fan-outs) besides being woken. */
export const IDLE_FETCH_MS = 3_000;
const FAILED_FETCH_PAUSE_MS = 1_000;

/** Takes up to `limit` jobs and starts their attempts: a promise each, settled once the attempt is recorded. */
export type TakeJobs = (limit: number, stop: AbortSignal) => Promise<Promise<void>[]>;

/**
 * One instance's attempts in flight, up to `capacity`: jobs fetched in batches when woken, as attempts end while jobs
 * may wait (once a quarter of the room is free when it is all taken, so a busy queue is not read a job at a time),
 * and every IDLE_FETCH_MS.
 */
export class DeliveryLoop {
  private inFlight = 0;
  private backlog = false;
  private stopped = false;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private readonly attempts = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private readonly refill: number;

  constructor(
    private readonly capacity: number,
    private readonly take: TakeJobs,
    private readonly warn: (message: string) => void,
  ) {
    this.refill = Math.max(1, Math.min(FETCH_MAX, Math.floor(capacity / 4)));
  }

  start(): void {
    this.running = this.loop();
  }

  /** Jobs may wait: fetch now rather than at the next idle poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** No fetch from now on; attempts in flight get `graceMs`, then are aborted (and fail, to be retried). */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running;
    const all = Promise.all(this.attempts);
    if (!(await Promise.race([all.then(() => true), sleep(graceMs).then(() => false)]))) {
      this.stopping.abort();
      await all;
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const limit = Math.min(this.capacity - this.inFlight, FETCH_MAX);
      if (limit < (this.backlog ? this.refill : 1)) {
        await this.rest(IDLE_FETCH_MS);
        continue;
      }
      let taken: Promise<void>[];
      try {
        taken = await this.take(limit, this.stopping.signal);
      } catch (error) {
        this.warn(`fetching webhook deliveries failed (tried again within a second): ${(error as Error).message}`);
        await this.rest(FAILED_FETCH_PAUSE_MS);
        continue;
      }
      for (const attempt of taken) this.track(attempt);
      // Jobs may wait behind a webhook's or partner's limit (a fetch then takes none): each attempt's end frees room for them.
      this.backlog = taken.length > 0 || this.inFlight > 0;
      if (taken.length < limit) await this.rest(IDLE_FETCH_MS);
    }
  }

  private track(attempt: Promise<void>): void {
    this.inFlight++;
    const tracked = attempt
      .catch(() => undefined)
      .finally(() => {
        this.inFlight--;
        this.attempts.delete(tracked);
        if (this.backlog && this.capacity - this.inFlight >= this.refill) this.wake();
      });
    this.attempts.add(tracked);
  }

  /** Until woken (at once if woken meanwhile) or `ms`. */
  private rest(ms: number): Promise<void> {
    if (this.woken || this.stopped) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = null;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
