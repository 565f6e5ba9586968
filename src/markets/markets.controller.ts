import { Controller, Get, Query } from '@nestjs/common';
import type { MarketItem } from './market-item';
import { MarketsService } from './markets.service';
import { parsePublicMarketQuery } from './public-market-query';
import { RateLimit } from '../observability/rate-limits';

@RateLimit('public')
@Controller('oracle/markets')
export class MarketsController {
  constructor(private readonly markets: MarketsService) {}

  /** get_public_market (spec §4.1). */
  @Get('public')
  async getPublicMarket(@Query() query: Record<string, unknown>): Promise<{ markets: MarketItem[] }> {
    return { markets: await this.markets.findPublicMarkets(parsePublicMarketQuery(query)) };
  }
}
