/** How many of the latest announced transactions are remembered (an announcement may arrive before its writer waits). */
const REMEMBERED = 4096;

/**
 * The writer's wait for its own change to be announced: a write is answered only once this
 * instance has heard the database announce its transaction, so the writer reads its change
 * here at once, and every other instance has been sent the same announcement.
 */
export class WriteAnnouncements {
  private readonly heardTransactions = new Set<string>();
  private readonly waiting = new Map<string, () => void>();

  /** Transaction `txid`'s announcement was heard. */
  heard(txid: string): void {
    this.heardTransactions.add(txid);
    if (this.heardTransactions.size > REMEMBERED) this.heardTransactions.delete(this.heardTransactions.values().next().value!);
    this.waiting.get(txid)?.();
  }

  /** Resolves once `txid` is heard, or after `timeoutMs` (the announcement is late or lost). */
  waitFor(txid: string, timeoutMs: number): Promise<void> {
    if (this.heardTransactions.has(txid)) return Promise.resolve();
    return new Promise((done) => {
      const finish = () => {
        clearTimeout(timer);
        if (this.waiting.get(txid) === finish) this.waiting.delete(txid);
        done();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.waiting.set(txid, finish);
    });
  }

  /** Nothing will be heard for a while (the feed went silent): nobody waits for it. */
  releaseAll(): void {
    for (const finish of [...this.waiting.values()]) finish();
  }
}
