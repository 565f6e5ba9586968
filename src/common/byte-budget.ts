/** Why bytes cannot be held now: their client's share is taken, or the whole budget is. */
export type BudgetRefusal = 'client' | 'process';

/** One address gets a quarter (at least `minShare`), more only while under half is held: one client cannot starve the rest. */
export class ByteBudget {
  readonly perClient: number;
  private heldInAll = 0;
  private readonly heldBy = new Map<string, number>();

  constructor(
    readonly total: number,
    minShare: number,
  ) {
    this.perClient = Math.max(Math.floor(total / 4), minShare);
  }

  get held(): number {
    return this.heldInAll;
  }

  /** Why `client` may not take `size` bytes more now, or undefined if it may. */
  refusal(client: string, size: number): BudgetRefusal | undefined {
    if (this.heldInAll + size > this.total / 2 && (this.heldBy.get(client) ?? 0) + size > this.perClient) return 'client';
    if (this.heldInAll + size > this.total) return 'process';
    return undefined;
  }

  /** Takes `size` bytes for `client`, or says why it cannot (and takes nothing). */
  take(client: string, size: number): BudgetRefusal | undefined {
    const refusal = this.refusal(client, size);
    if (refusal === undefined) this.hold(client, size);
    return refusal;
  }

  /** Counts `size` bytes held for `client` whatever the budget (what is already in memory). */
  hold(client: string, size: number): void {
    this.heldBy.set(client, (this.heldBy.get(client) ?? 0) + size);
    this.heldInAll += size;
  }

  give(client: string, size: number): void {
    const left = (this.heldBy.get(client) ?? 0) - size;
    if (left > 0) this.heldBy.set(client, left);
    else this.heldBy.delete(client);
    this.heldInAll -= size;
  }
}
