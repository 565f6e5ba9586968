import type { DeliveryOutcome } from './webhook-sender';

/** Outcomes settled in one statement at most (each kind). */
const SETTLE_MAX = 500;

/** An attempt's end: `outcome` null when none was made (nothing to send). */
export interface Settlement<JobRef> {
  job: JobRef;
  outcome: DeliveryOutcome | null;
}

/** Attempts ending together are recorded and their jobs settled together: a few statements for a batch, not for each. */
export class DeliverySettlements<JobRef> {
  private queued: (Settlement<JobRef> & { done: () => void })[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly settle: (batch: Settlement<JobRef>[]) => Promise<void>,
    private readonly warn: (message: string) => void,
  ) {}

  /** Resolves once settled; a failure is only logged: the job, left active, is retried when it expires. */
  add(job: JobRef, outcome: DeliveryOutcome | null): Promise<void> {
    return new Promise((done) => {
      this.queued.push({ job, outcome, done });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    // Outcomes that arrive in the same turn of the event loop join the batch.
    await new Promise(setImmediate);
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, SETTLE_MAX);
      try {
        await this.settle(batch);
      } catch (error) {
        this.warn(`recording webhook attempts failed (their jobs are retried once they expire): ${(error as Error).message}`);
      }
      for (const settled of batch) settled.done();
    }
    this.flushing = null;
  }
}
