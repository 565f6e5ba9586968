import { Injectable } from '@nestjs/common';
import { type AuthenticatedPartner, PartnerKeysService } from '../../auth/partner-keys.service';
import { ApiError, ErrorCatalogue } from '../../common/error-catalogue';
import type { RequestContext } from '../../common/request-context';
import type { ChangeEvent } from '../../changes/change-event';
import { ChangeLogRepository } from '../../changes/change-log.repository';
import { ChangeWaiters } from '../../changes/change-waiters';
import type { MarketItem } from '../market-item.schema';
import type { ChangesQueryDto } from './changes-query.dto';

type MarketChange = ChangeEvent<MarketItem>;

const DEFAULT_LIMIT = 100;

/** The changes feed (contract §7): a partner's events after its cursor, at once or once one comes. */
@Injectable()
export class ChangesFeed {
  constructor(
    private readonly repository: ChangeLogRepository,
    private readonly waiters: ChangeWaiters,
    private readonly partnerKeys: PartnerKeysService,
  ) {}

  async read(partner: AuthenticatedPartner, query: ChangesQueryDto, context: RequestContext, left: AbortSignal): Promise<{ changes: MarketChange[]; next_after: number }> {
    const after = query.after ?? 0;
    const limit = query.limit ?? DEFAULT_LIMIT;
    let page = await this.page(partner.source, after, limit);
    if (page.length === 0 && (query.wait_ms ?? 0) > 0) {
      // A long poll waits without working: it is no request in progress (5031), and is bounded apart.
      context.place?.leave();
      await this.waiters.wait(partner.source, partner.keyId, BigInt(after), query.wait_ms!, left);
      // Woken, it works again: counted among the requests in progress, as the in-flight gauge shows.
      await context.place?.resume();
      if (left.aborted) return { changes: [], next_after: after };
      // Revoked while it waited: refused, as the key is from then on everywhere.
      if (!(await this.partnerKeys.keyIsActive(partner.keyId))) throw new ApiError(ErrorCatalogue.API_KEY_INVALID);
      page = await this.page(partner.source, after, limit);
    }
    return { changes: page, next_after: page.at(-1)?.sequence ?? after };
  }

  private async page(source: string, after: number, limit: number): Promise<MarketChange[]> {
    const { deleted_through: deletedThrough, last_sequence: head, changes } = await this.repository.feed<MarketItem>(source, String(after), limit);
    // From the first event kept, not the head: the kept ones may announce markets the partner has not heard of.
    if (after > 0 && after < Number(deletedThrough)) {
      throw new ApiError(
        ErrorCatalogue.CHANGES_CURSOR_EXPIRED,
        `events up to sequence ${deletedThrough} are no longer kept: read your markets again, then continue with after=${deletedThrough}`,
      );
    }
    // A cursor no answer can have given. The read may have been a lagging replica's: only the primary's head refuses.
    if (after > Number(head) && after > Number(await this.repository.head())) throw new ApiError(ErrorCatalogue.INVALID_REQUEST, 'after is past the newest event');
    return changes;
  }
}
