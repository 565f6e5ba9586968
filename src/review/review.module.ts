import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { DisputesModule } from '../disputes/disputes.module';
import { MarketsModule } from '../markets/markets.module';
import { ReviewController } from './review.controller';
import { Reviewing } from './reviewing';

/** Reviewing: the dispute queue, decisions and the audit trail (the admin routes of reviewers). */
@Module({
  imports: [AuditModule, AuthModule, MarketsModule, DisputesModule],
  controllers: [ReviewController],
  providers: [Reviewing],
})
export class ReviewModule {}
