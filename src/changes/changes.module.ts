import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChangeLog } from './change-log';
import { ChangeLogHead } from './change-log-head.entity';
import { ChangeLogReader } from './change-log-reader.entity';
import { ChangeLogRepository } from './change-log.repository';
import { ChangeWaiters } from './change-waiters';
import { MarketEvent } from './market-event.entity';

/** The change log: events of every change partners can see, read by this instance, the feed and webhooks. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([MarketEvent, ChangeLogHead, ChangeLogReader])],
  providers: [ChangeLogRepository, ChangeLog, ChangeWaiters],
  exports: [ChangeLogRepository, ChangeLog, ChangeWaiters],
})
export class ChangesModule {}
