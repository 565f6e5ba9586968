/** Why a body cannot be held now: its client's share is taken, or the whole budget is. */
export type BodyRefusal = 'client' | 'process';

/**
 * The bytes of request bodies a process holds at once (`total`), and the share of them one
 * client address may count on: a quarter of the total, and never less than one body of
 * `bodyLimit`. An address may hold more while the process holds less than half the total, so
 * a burst from one client is refused only when others may need the room; one address thus
 * never holds more than half. Without the share, one address trickling ~130 large bodies held
 * the whole budget until their deadline, and every other client's bodies were refused meanwhile.
 */
export class BodyBudget {
  readonly perClient: number;
  private heldInAll = 0;
  private readonly heldBy = new Map<string, number>();

  constructor(
    readonly total: number,
    bodyLimit: number,
  ) {
    this.perClient = Math.max(Math.floor(total / 4), bodyLimit);
  }

  get held(): number {
    return this.heldInAll;
  }

  /** Takes `size` bytes for a body from `client`, or says why it cannot (and takes nothing). */
  take(client: string, size: number): BodyRefusal | undefined {
    const byClient = this.heldBy.get(client) ?? 0;
    if (byClient + size > this.perClient && this.heldInAll + size > this.total / 2) return 'client';
    if (this.heldInAll + size > this.total) return 'process';
    this.heldBy.set(client, byClient + size);
    this.heldInAll += size;
    return undefined;
  }

  /** Gives back `size` bytes `client` took. */
  give(client: string, size: number): void {
    const left = (this.heldBy.get(client) ?? 0) - size;
    if (left > 0) this.heldBy.set(client, left);
    else this.heldBy.delete(client);
    this.heldInAll -= size;
  }
}
