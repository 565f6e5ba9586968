import { Injectable } from '@nestjs/common';
import DataLoader from 'dataloader';
import type { EntityManager } from 'typeorm';
import { skeleton, toStored } from '../common/confusable-skeleton';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { JsonText } from '../common/json-text';
import { isUniqueViolation } from '../database/database-errors';
import { boundedPage, pageOf, type PageRow } from '../database/bounded-page';
import { likeContaining } from '../database/sql-fragments';
import { Sql, statement } from '../database/sql';
import { MARKET_ITEM_JSON, type MarketItem } from './market-item';
import { assertClosable, assertResolvable, type Chain, type Confidence, type MarketStatus } from './market-state';
import { Market } from './market.entity';
import { Proof } from './proof.entity';
import { NO_PUBLIC_RECORD } from './public-records/public-record-cache';
import { PublicRecords } from './public-records/public-records';
import type { PublicMarketQuery } from './public-market-query';

// The public record of one (source, slug) pair; `at` as in PUBLIC_MARKETS.
const PUBLIC_MARKET = statement<{ at: number; item: MarketItem }>(
  `SELECT 1 AS at, ${MARKET_ITEM_JSON} AS item FROM markets m WHERE m.source = $1 AND m.slug = $2`,
);
// The public records of several pairs, given as two arrays of one length: each row carries its
// pair's position in them (`at`, from 1); an index lookup per pair. Kept for two pairs or more:
// planned for the pairs given, one planning for the lot.
const PUBLIC_MARKETS = statement<{ at: string; item: MarketItem }>(
  `SELECT k.at, ${MARKET_ITEM_JSON} AS item
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(source, slug, at)
  JOIN markets m ON m.source = k.source AND m.slug = k.slug`,
);

/** At most this many records are read by one statement. */
const PUBLIC_READ_BATCH = 100;

const MARKET_BY_ID = statement<{ item: MarketItem }>(`SELECT ${MARKET_ITEM_JSON} AS item FROM markets m WHERE m.id = $1`);
const LOCK_MARKET = statement<LockedMarket>('SELECT id, source, slug, status, verdict FROM markets WHERE id = $1 FOR UPDATE');
const CLOSE = statement(`UPDATE markets SET status = 'closed', updated_at = now() WHERE id = $1`);

// Newest first, by id: keyset pagination on the primary key stays stable while markets are
// created. $3 is an ILIKE pattern (likeContaining), so part of the slug in any letter case.
const MARKET_LIST = statement<PageRow<MarketItem>>(
  boundedPage(
    `SELECT m.id, ${MARKET_ITEM_JSON} AS item FROM markets m
  WHERE ($1::text IS NULL OR m.source = $1)
    AND ($2::text IS NULL OR m.status = $2)
    AND ($3::text IS NULL OR m.slug ILIKE $3 ESCAPE '\\')
    AND ($4::bigint IS NULL OR m.id < $4)
  ORDER BY m.id DESC LIMIT $5`,
    'id DESC',
  ),
);

export interface MarketListPage {
  source?: string;
  status?: MarketStatus;
  /** Part of the slug, matched literally, in any letter case. */
  slugContains?: string;
  /** Only markets with a smaller id (the keyset cursor). */
  beforeId?: string;
  limit: number;
}

/** The market row as a state transition needs it, read under a row lock. */
export interface LockedMarket {
  id: string;
  source: string;
  slug: string;
  status: MarketStatus;
  verdict: string | null;
}

export interface Resolution {
  verdict: string;
  confidence: Confidence;
  reasoning: string;
  proofs: { chain: Chain; tx_hash: string }[];
  resolvedAt: Date;
}

@Injectable()
export class MarketsService {
  /**
   * The records the cache misses in one turn of the event loop (the requests read from every
   * socket that had data) are read by one statement, dispatched once that turn's I/O is handled
   * (setImmediate): one round trip and one execution for many misses instead of one each. No
   * memo: the cache and PublicRecords' shared reads decide what is read.
   */
  private readonly publicMarkets = new DataLoader((queries: readonly PublicMarketQuery[]) => this.readPublicMarkets(queries), {
    cache: false,
    maxBatchSize: PUBLIC_READ_BATCH,
    batchScheduleFn: (dispatch) => setImmediate(dispatch),
  });

  constructor(
    private readonly sql: Sql,
    private readonly records: PublicRecords,
  ) {}

  /** get_public_market: the hot path partners poll; from the cache, else an indexed read shared with other misses. */
  findPublicMarkets({ source, slug }: PublicMarketQuery): Promise<JsonText> {
    return this.records.get(source, slug, () => this.publicMarkets.load({ source, slug }));
  }

  /** The `data` of get_public_market for each query, in order: `{markets: []}` for an unknown market. */
  private async readPublicMarkets(queries: readonly PublicMarketQuery[]): Promise<JsonText[]> {
    const rows =
      queries.length === 1
        ? await this.sql.readRows(PUBLIC_MARKET, [queries[0].source, queries[0].slug])
        : await this.sql.readRows(PUBLIC_MARKETS, [queries.map((query) => query.source), queries.map((query) => query.slug)]);
    const found: MarketItem[][] = queries.map(() => []);
    for (const row of rows) found[Number(row.at) - 1].push(row.item);
    return found.map((markets) => (markets.length === 0 ? NO_PUBLIC_RECORD : JsonText.of({ markets })));
  }

  /** One page of markets for the back office (at most PAGE_BYTES of them), plus whether more follow. */
  async listMarkets(page: MarketListPage): Promise<{ markets: MarketItem[]; hasMore: boolean }> {
    const rows = await this.sql.readRows(MARKET_LIST, [
      page.source ?? null,
      page.status ?? null,
      page.slugContains === undefined ? null : likeContaining(page.slugContains),
      page.beforeId ?? null,
      page.limit + 1,
    ]);
    const { items, hasMore } = pageOf(rows, page.limit);
    return { markets: items, hasMore };
  }

  async getMarketItem(manager: EntityManager, id: string): Promise<MarketItem> {
    const [row] = await this.sql.rows(MARKET_BY_ID, [id], manager);
    if (!row) throw new ApiError(ErrorCatalogue.MARKET_NOT_FOUND);
    return row.item;
  }

  /** Reads and row-locks a market for the rest of the transaction (4040 when absent). */
  async lockMarket(manager: EntityManager, id: string): Promise<LockedMarket> {
    const [market] = await this.sql.rows(LOCK_MARKET, [id], manager);
    if (!market) throw new ApiError(ErrorCatalogue.MARKET_NOT_FOUND);
    return market;
  }

  /** disputed → closed, for a market locked in `manager`'s transaction, once its dispute is decided. */
  async closeAfterDecision(manager: EntityManager, market: LockedMarket): Promise<void> {
    assertClosable(market.status);
    await this.sql.rows(CLOSE, [market.id], manager);
  }

  /** A new market in `monitoring`, its slug stored in NFC: 4093 when a market of its source has a slug of the same skeleton. */
  async createMarket(manager: EntityManager, source: string, givenSlug: string): Promise<string> {
    const slug = toStored(givenSlug);
    try {
      const market = await manager.save(manager.create(Market, { source, slug, slugSkeleton: skeleton(slug), status: 'monitoring' }));
      return market.id;
    } catch (error) {
      if (isUniqueViolation(error, 'uq_markets_source_slug', 'uq_markets_source_slug_skeleton')) {
        throw new ApiError(ErrorCatalogue.ALREADY_EXISTS, 'the source has a market with that slug, or one that reads the same');
      }
      throw error;
    }
  }

  /** monitoring → resolved, with the verdict and its proofs (4094 from any other state). */
  async resolveMarket(manager: EntityManager, id: string, resolution: Resolution): Promise<void> {
    const market = await this.lockMarket(manager, id);
    assertResolvable(market.status);
    await manager.update(Market, id, {
      status: 'resolved',
      verdict: resolution.verdict,
      confidence: resolution.confidence,
      reasoning: resolution.reasoning,
      resolvedAt: resolution.resolvedAt,
    });
    await manager.insert(
      Proof,
      resolution.proofs.map((proof, position) => ({ marketId: id, position, chain: proof.chain, txHash: proof.tx_hash })),
    );
  }
}
