import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import DataLoader from 'dataloader';
import type { Repository } from 'typeorm';
import type { MarketKey } from '../changes/revealed-change';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import { boundedPage, pageOf } from '../database/bounded-page';
import { isUniqueViolation } from '../database/database-errors';
import { raw, Sql, sql, type Statement, type Transaction } from '../database/sql';
import { likeContaining } from '../database/sql-fragments';
import { MARKET_ITEM_JSON } from './market-item';
import { Market } from './market.entity';
import type { MarketItem } from './market-item.schema';
import type { Chain, Confidence, MarketStatus } from './market-state';
import { Proof } from './proof.entity';
import type { PublicMarketQuery } from './public-market-query.dto';

const MARKET_ITEM = raw(MARKET_ITEM_JSON);

/** At most this many records are read by one statement. */
const PUBLIC_READ_BATCH = 100;

/** The market row as a state transition needs it, read under a row lock. */
export type LockedMarket = Pick<Market, 'id' | 'source' | 'slug' | 'status' | 'verdict'>;

export interface Resolution {
  verdict: string;
  confidence: Confidence;
  reasoning: string;
  proofs: { chain: Chain; tx_hash: string }[];
  resolvedAt: Date;
}

export interface MarketListPage {
  source?: string;
  status?: MarketStatus;
  /** Part of the slug, matched literally, in any letter case. */
  slugContains?: string;
  /** Only markets with a smaller id (the keyset cursor). */
  beforeId?: string;
  limit: number;
}

/** Markets and their proofs: the Markets module's SQL. Records are built as JSON by PostgreSQL (market-item.ts). */
@Injectable()
export class MarketsRepository {
  /** One statement for a turn's cache misses, after its I/O (setImmediate); no memo: the cache and PublicRecords' shared reads decide what is read. */
  private readonly publicReads = new DataLoader((queries: readonly PublicMarketQuery[]) => this.readPublicMarkets(queries), {
    cache: false,
    maxBatchSize: PUBLIC_READ_BATCH,
    batchScheduleFn: (dispatch) => setImmediate(dispatch),
  });

  constructor(
    private readonly sql: Sql,
    @InjectRepository(Market) private readonly markets: Repository<Market>,
    @InjectRepository(Proof) private readonly proofs: Repository<Proof>,
  ) {}

  /** The records of (source, slug), read with the other misses of this turn of the event loop. */
  findPublic(query: PublicMarketQuery): Promise<MarketItem[]> {
    return this.publicReads.load(query);
  }

  /** Rows are tagged with their pair's position (`at`, from 1); a lone pair takes the plain statement, as the unnest plan only pays for two or more. */
  private async readPublicMarkets(queries: readonly PublicMarketQuery[]): Promise<MarketItem[][]> {
    const rows =
      queries.length === 1
        ? await this.sql.readRows(
            sql<{ at: number; item: MarketItem }>`SELECT 1 AS at, ${MARKET_ITEM} AS item FROM markets m WHERE m.source = ${queries[0].source} AND m.slug = ${queries[0].slug}`,
          )
        : await this.sql.readRows(sql<{ at: string; item: MarketItem }>`SELECT k.at, ${MARKET_ITEM} AS item
            FROM unnest(${queries.map((query) => query.source)}::text[], ${queries.map((query) => query.slug)}::text[]) WITH ORDINALITY AS k(source, slug, at)
            JOIN markets m ON m.source = k.source AND m.slug = k.slug`);
    const found: MarketItem[][] = queries.map(() => []);
    for (const row of rows) found[Number(row.at) - 1].push(row.item);
    return found;
  }

  /** Newest first by id, a keyset stable while markets are created; at most PAGE_BYTES, and whether more follow. */
  async listPage(page: MarketListPage): Promise<{ markets: MarketItem[]; hasMore: boolean }> {
    const { source = null, status = null, beforeId = null } = page;
    const slugLike = page.slugContains === undefined ? null : likeContaining(page.slugContains);
    const rows = await this.sql.readRows(
      boundedPage<MarketItem>(
        sql`SELECT m.id, ${MARKET_ITEM} AS item FROM markets m
        WHERE (${source}::text IS NULL OR m.source = ${source})
          AND (${status}::text IS NULL OR m.status = ${status})
          AND (${slugLike}::text IS NULL OR m.slug ILIKE ${slugLike} ESCAPE '\\')
          AND (${beforeId}::bigint IS NULL OR m.id < ${beforeId})
        ORDER BY m.id DESC LIMIT ${page.limit + 1}`,
        'id DESC',
      ),
    );
    const { items, hasMore } = pageOf(rows, page.limit);
    return { markets: items, hasMore };
  }

  async item(id: string, tx?: Transaction): Promise<MarketItem | undefined> {
    const [row] = await this.sql.rows(sql<{ item: MarketItem }>`SELECT ${MARKET_ITEM} AS item FROM markets m WHERE m.id = ${id}`, tx);
    return row?.item;
  }

  // Hand-written, as the filing's other statements (docs/architecture.md, "Hand-tuned statements").

  /** Market `id`, row-locked until `tx` ends, once boolean `guard` (evaluated first, in the same round trip) is true. */
  async lock(tx: Transaction, id: string, guard: Statement = sql`true`): Promise<{ passed: boolean; market?: LockedMarket }> {
    const [{ passed, ...market }] = await this.sql.rows(
      sql<LockedMarket & { passed: boolean }>`SELECT g.passed, m.id, m.source, m.slug, m.status, m.verdict FROM (SELECT ${guard} AS passed) g
        LEFT JOIN LATERAL (SELECT id, source, slug, status, verdict FROM markets WHERE id = ${id} AND g.passed FOR UPDATE) m ON true`,
      tx,
    );
    return { passed, market: market.id === null ? undefined : market };
  }

  async keyOf(tx: Transaction, id: string): Promise<MarketKey | undefined> {
    const [market] = await this.sql.rows(sql<MarketKey>`SELECT source, slug FROM markets WHERE id = ${id}`, tx);
    return market;
  }

  /** A new market in `monitoring`: 4093 when its source has the slug, or one of the same skeleton. */
  async insert(tx: Transaction, market: { source: string; slug: string; slugSkeleton: string }): Promise<string> {
    try {
      const { identifiers } = await tx.withRepository(this.markets).insert({ ...market, status: 'monitoring' });
      return String(identifiers[0].id);
    } catch (error) {
      if (isUniqueViolation(error, 'uq_markets_source_slug', 'uq_markets_source_slug_skeleton')) {
        throw new ApiError(ErrorCatalogue.ALREADY_EXISTS, 'the source has a market with that slug, or one that reads the same');
      }
      throw error;
    }
  }

  /** Market `id` resolved with `resolution`, its proofs in their order. */
  async resolve(tx: Transaction, id: string, resolution: Resolution): Promise<void> {
    const { verdict, confidence, reasoning, resolvedAt, proofs } = resolution;
    await tx.withRepository(this.markets).update({ id }, { status: 'resolved', verdict, confidence, reasoning, resolvedAt });
    if (proofs.length > 0) {
      await tx.withRepository(this.proofs).insert(proofs.map((proof, position) => ({ marketId: id, position, chain: proof.chain, txHash: proof.tx_hash })));
    }
  }

  /** A state transition's new status (market-state.ts decides which), its updated_at refreshed. */
  async setStatus(tx: Transaction, id: string, status: MarketStatus): Promise<void> {
    await this.sql.rows(this.statusUpdate(sql`${id}`, status), tx);
  }

  /** The UPDATE of setStatus for the markets `ids` selects, for a statement that runs it with its own (a CTE). */
  statusUpdate(ids: Statement, status: MarketStatus): Statement {
    return sql`UPDATE markets SET status = ${status}, updated_at = now() WHERE id IN (${ids})`;
  }
}
