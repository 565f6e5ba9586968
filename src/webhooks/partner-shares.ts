import type { DeliveryJobRef } from './delivery-queue';

/**
 * Each partner's part of this instance's attempts in flight: once a partner holds `share`, fetches skip the webhooks
 * of its jobs seen so far, so its hanging endpoints hold that part, never the others'.
 */
export class PartnerShares {
  private readonly inFlight = new Map<string, number>();
  private readonly webhooksOf = new Map<string, Set<string>>();

  constructor(private readonly share: number) {}

  /** The webhooks whose jobs a fetch leaves now. */
  skipped(): string[] {
    const skipped: string[] = [];
    for (const [source, count] of this.inFlight) if (count >= this.share) skipped.push(...(this.webhooksOf.get(source) ?? []));
    return skipped;
  }

  started(job: DeliveryJobRef): void {
    const source = job.data.source;
    if (source === undefined) return;
    this.inFlight.set(source, (this.inFlight.get(source) ?? 0) + 1);
    let webhooks = this.webhooksOf.get(source);
    if (!webhooks) this.webhooksOf.set(source, (webhooks = new Set()));
    if (job.groupId) webhooks.add(job.groupId);
  }

  ended(job: DeliveryJobRef): void {
    const source = job.data.source;
    if (source === undefined) return;
    const count = (this.inFlight.get(source) ?? 1) - 1;
    if (count > 0) return void this.inFlight.set(source, count);
    this.inFlight.delete(source);
    this.webhooksOf.delete(source);
  }
}
