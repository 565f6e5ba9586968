import { Module } from '@nestjs/common';
import { MarketsController } from './markets.controller';
import { MarketsService } from './markets.service';
import { PublicRecords } from './public-records/public-records';

@Module({
  controllers: [MarketsController],
  providers: [MarketsService, PublicRecords],
  exports: [MarketsService],
})
export class MarketsModule {}
