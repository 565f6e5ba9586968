import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import type { JsonText } from '../common/json-text';
import { PublicMarketData } from './market-item.schema';
import { MarketsService } from './markets.service';
import { PublicMarketQuery } from './public-market-query.dto';
import { Public } from '../auth/access.decorators';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import { RateLimit } from '../rate-limits/rate-limits';

@ApiTags('partner')
@Public()
@RateLimit('public')
@UseGuards(RateLimitGuard)
@Controller('oracle/markets')
export class MarketsController {
  constructor(private readonly markets: MarketsService) {}

  /** get_public_market (spec §4.1): `data` is `{markets: [market_item]}`, serialized once per cached record. */
  @Get('public')
  @ApiEnvelope(PublicMarketData, 'A market\'s settlement record, by slug and source (no authentication)', ['SLUG_REQUIRED', 'SOURCE_REQUIRED'])
  getPublicMarket(@Query() query: PublicMarketQuery): Promise<JsonText> {
    return this.markets.findPublicMarkets(query);
  }
}
