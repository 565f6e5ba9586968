import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChangeLog } from './change-log';
import { ChangeLogHead } from './change-log-head.entity';
import { ChangeLogReader } from './change-log-reader.entity';
import { ChangeLogRepository } from './change-log.repository';
import { ChangeLogRetention } from './change-log-retention';
import { ChangeSignal } from './change-signal';
import { ChangeWaiters } from './change-waiters';
import { MarketEvent } from './market-event.entity';

/** The change log: events of every change partners can see, read by this instance, the feed and webhooks. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([MarketEvent, ChangeLogHead, ChangeLogReader])],
  providers: [ChangeLogRepository, ChangeSignal, ChangeLog, ChangeLogRetention, ChangeWaiters],
  exports: [ChangeLogRepository, ChangeSignal, ChangeLog, ChangeWaiters],
})
export class ChangesModule {}
