import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { SLUG_PATTERN, TEXT_PATTERN } from '../common/validation';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import type { JsonText } from '../common/json-text';
import { PublicMarketData } from './market-item.schema';
import { MarketsService } from './markets.service';
import { SOURCE_MAX_LENGTH } from '../auth/partner-source';
import { SLUG_MAX_LENGTH } from './market-identity';
import { parsePublicMarketQuery } from './public-market-query';
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
  @ApiQuery({
    name: 'slug',
    required: true,
    example: 'btc-above-100k-2026',
    description: 'Market slug; leading and trailing spaces and "/" are ignored',
    schema: { type: 'string', minLength: 1, maxLength: SLUG_MAX_LENGTH, pattern: SLUG_PATTERN },
  })
  @ApiQuery({
    name: 'source',
    required: true,
    example: 'demo',
    description: 'The partner-specific source identifier; leading and trailing spaces are ignored',
    schema: { type: 'string', minLength: 1, maxLength: SOURCE_MAX_LENGTH, pattern: TEXT_PATTERN },
  })
  getPublicMarket(@Query() query: Record<string, unknown>): Promise<JsonText> {
    return this.markets.findPublicMarkets(parsePublicMarketQuery(query));
  }
}
