import { Injectable } from '@nestjs/common';
import { skeleton, toStored } from '../common/confusable-skeleton';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { JsonText } from '../common/json-text';
import type { MarketKey } from '../changes/revealed-change';
import type { Statement, Transaction } from '../database/sql';
import type { MarketItem } from './market-item.schema';
import { assertClosable, assertResolvable } from './market-state';
import { type LockedMarket, type MarketListPage, MarketsRepository, type Resolution } from './markets.repository';
import { NO_PUBLIC_RECORD } from './public-records/public-record-cache';
import { PublicRecords } from './public-records/public-records';
import type { PublicMarketQuery } from './public-market-query.dto';


/** The `data` of get_public_market: `{markets: []}` for an unknown market (one shared value). */
const publicRecordOf = (markets: MarketItem[]): JsonText => (markets.length === 0 ? NO_PUBLIC_RECORD : JsonText.of({ markets }));

@Injectable()
export class MarketsService {
  constructor(
    private readonly repository: MarketsRepository,
    private readonly records: PublicRecords,
  ) {}

  /** get_public_market: the hot path partners poll; from the cache, else an indexed read shared with other misses. */
  findPublicMarkets(query: PublicMarketQuery): Promise<JsonText> {
    return this.records.get(query.source, query.slug, () => this.repository.findPublic(query).then(publicRecordOf));
  }

  /** One page of markets for the back office (at most PAGE_BYTES of them), plus whether more follow. */
  listMarkets(page: MarketListPage): Promise<{ markets: MarketItem[]; hasMore: boolean }> {
    return this.repository.listPage(page);
  }

  async getMarketItem(tx: Transaction, id: string): Promise<MarketItem> {
    const item = await this.repository.item(id, tx);
    if (!item) throw new ApiError(ErrorCatalogue.MARKET_NOT_FOUND);
    return item;
  }

  /** Reads and row-locks a market for the rest of the transaction (4040 when absent). */
  async lockMarket(tx: Transaction, id: string): Promise<LockedMarket> {
    const { market } = await this.repository.lock(tx, id);
    if (!market) throw new ApiError(ErrorCatalogue.MARKET_NOT_FOUND);
    return market;
  }

  /** As lockMarket, once boolean `guard` is true (one round trip): `passed` false, and nothing locked, when it is not. */
  lockMarketAfter(tx: Transaction, id: string, guard: Statement): Promise<{ passed: boolean; market?: LockedMarket }> {
    return this.repository.lock(tx, id, guard);
  }

  /** resolved → disputed, run by the statement that files the dispute of the markets `ids` selects (the filing checks it: assertFileable). */
  markDisputed(ids: Statement): Statement {
    return this.repository.statusUpdate(ids, 'disputed');
  }

  /** (source, slug) of market `id`, as the change log names it; undefined when there is none. */
  keyOf(tx: Transaction, id: string): Promise<MarketKey | undefined> {
    return this.repository.keyOf(tx, id);
  }

  /** disputed → closed, for a market locked in `tx`, once its dispute is decided. */
  async closeAfterDecision(tx: Transaction, market: LockedMarket): Promise<void> {
    assertClosable(market.status);
    await this.repository.setStatus(tx, market.id, 'closed');
  }

  /** A new market in `monitoring`, its slug stored in NFC: 4093 when a market of its source has a slug of the same skeleton. */
  createMarket(tx: Transaction, source: string, givenSlug: string): Promise<string> {
    const slug = toStored(givenSlug);
    return this.repository.insert(tx, { source, slug, slugSkeleton: skeleton(slug) });
  }

  /** monitoring → resolved, with the verdict and its proofs (4094 from any other state). */
  async resolveMarket(tx: Transaction, id: string, resolution: Resolution): Promise<void> {
    const market = await this.lockMarket(tx, id);
    assertResolvable(market.status);
    await this.repository.resolve(tx, id, resolution);
  }
}
