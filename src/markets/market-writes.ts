import { Injectable } from '@nestjs/common';
import { type AuditActor, type AuditedWrite, AuditTrail } from '../audit/audit-trail';
import type { ChangeType } from '../changes/change-event';
import { ChangeLog } from '../changes/change-log';
import { RefusalRevealingChange } from '../changes/revealed-change';
import type { Transaction } from '../database/sql';

/** An audited write to one market's public record, naming the market it changed. */
export interface AuditedMarketWrite<T> extends AuditedWrite<T> {
  market: { id: string | number; source: string; slug: string };
}

/** Admin writes that change a market's public record: the write, its audit event and its change event commit together. */
@Injectable()
export class MarketWrites {
  constructor(
    private readonly audit: AuditTrail,
    private readonly changes: ChangeLog,
  ) {}

  /** Answered once every instance has the change (ChangeLog.written), or the committed change a refusal reveals (4092). */
  async record<T>(actor: AuditActor, type: ChangeType, write: (tx: Transaction) => Promise<AuditedMarketWrite<T>>): Promise<T> {
    let market!: AuditedMarketWrite<T>['market'];
    let eventId!: string;
    const result = await this.audit
      .record(actor, async (tx) => {
        const outcome = await write(tx);
        market = outcome.market;
        eventId = await this.changes.append(tx, type, String(market.id));
        return outcome;
      })
      .catch(async (error: unknown) => {
        if (error instanceof RefusalRevealingChange) await this.changes.acknowledge(error.market);
        throw error;
      });
    await this.changes.written(market.source, market.slug, eventId);
    return result;
  }
}
