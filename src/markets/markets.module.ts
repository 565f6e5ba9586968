import { Module } from '@nestjs/common';
import { MarketsController } from './markets.controller';
import { MarketsService } from './markets.service';
import { MarketChangeFeed } from './public-records/change-feed';
import { PublicRecords } from './public-records/public-records';

@Module({
  controllers: [MarketsController],
  providers: [MarketsService, MarketChangeFeed, PublicRecords],
  exports: [MarketsService],
})
export class MarketsModule {}
