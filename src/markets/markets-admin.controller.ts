import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentActor, Roles } from '../auth/access.decorators';
import type { AdminActor } from '../auth/reviewers.service';
import { DEFAULT_PAGE_SIZE, idAfterCursor, nextCursor } from '../common/cursor';
import { NoQuery } from '../common/no-fields';
import { ParseIdPipe } from '../common/validation';
import { RateLimit } from '../rate-limits/rate-limits';
import { ApiEnvelope, ApiIdParam } from '../openapi/api-envelope.decorator';
import { MarketAdmin } from './market-admin';
import { CreateMarketDto, MarketListQueryDto, ResolveMarketDto } from './market-admin.dto';
import { MarketItem, MarketList } from './market-item.schema';
import { MarketsService } from './markets.service';
import { JsonBody } from '../edge/json-body.interceptor';

/** The admin API's markets: found, created and resolved (contract §4). */
@ApiTags('admin')
@RateLimit('admin')
@Controller('admin')
export class MarketsAdminController {
  constructor(
    private readonly admin: MarketAdmin,
    private readonly markets: MarketsService,
  ) {}

  @Get('markets')
  @Roles('admin', 'reviewer')
  @ApiEnvelope(MarketList, 'Find markets by source, status and part of the slug, newest first')
  async listMarkets(@Query() query: MarketListQueryDto) {
    const { markets, hasMore } = await this.markets.listMarkets({
      source: query.source,
      status: query.status,
      slugContains: query.q,
      beforeId: idAfterCursor(query.cursor),
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
    });
    return { markets, next_cursor: nextCursor(markets, hasMore) };
  }

  @Post('markets')
  @JsonBody()
  @HttpCode(200)
  @Roles('admin')
  @ApiEnvelope(MarketItem, 'Create a market in `monitoring`', ['PARTNER_NOT_FOUND', 'ALREADY_EXISTS'])
  createMarket(@CurrentActor() actor: AdminActor, @Body() body: CreateMarketDto, @Query() _query: NoQuery) {
    return this.admin.createMarket(actor, body.source, body.slug);
  }

  @Post('markets/:id/resolve')
  @JsonBody()
  @ApiIdParam('id', 2, 'The market\'s id')
  @HttpCode(200)
  @Roles('admin')
  @ApiEnvelope(MarketItem, 'Resolve a monitoring market with its verdict and proofs', ['MARKET_NOT_FOUND', 'MARKET_NOT_MONITORING'])
  resolveMarket(
    @Param('id', ParseIdPipe) id: string,
    @CurrentActor() actor: AdminActor,
    @Body() body: ResolveMarketDto,
    @Query() _query: NoQuery,
  ) {
    return this.admin.resolveMarket(actor, id, body);
  }
}
