import { Global, Module } from '@nestjs/common';
import { ChangeLog } from './change-log';
import { ChangeLogRepository } from './change-log.repository';
import { ChangeWaiters } from './change-waiters';
import { ChangesController } from './changes.controller';
import { ChangesFeed } from './changes-feed';

/** The change log: events of every change partners can see, read by this instance, the feed and webhooks. */
@Global()
@Module({
  controllers: [ChangesController],
  providers: [ChangeLogRepository, ChangeLog, ChangeWaiters, ChangesFeed],
  exports: [ChangeLog, ChangeWaiters],
})
export class ChangesModule {}
