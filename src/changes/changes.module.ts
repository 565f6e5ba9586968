import { Global, Module } from '@nestjs/common';
import { ChangeLog } from './change-log';
import { ChangeLogRepository } from './change-log.repository';
import { ChangeWaiters } from './change-waiters';

/** The change log: events of every change partners can see, read by this instance, the feed and webhooks. */
@Global()
@Module({
  providers: [ChangeLogRepository, ChangeLog, ChangeWaiters],
  exports: [ChangeLogRepository, ChangeLog, ChangeWaiters],
})
export class ChangesModule {}
