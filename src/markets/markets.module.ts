import { Module } from '@nestjs/common';
import { MarketsController } from './markets.controller';
import { MarketsService } from './markets.service';
import { PublicMarketCache } from './public-market-cache';

@Module({
  controllers: [MarketsController],
  providers: [MarketsService, PublicMarketCache],
  exports: [MarketsService, PublicMarketCache],
})
export class MarketsModule {}
