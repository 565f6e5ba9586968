import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { DisputesModule } from '../disputes/disputes.module';
import { MarketsModule } from '../markets/markets.module';
import { AuditService } from './audit.service';
import { BackOfficeService } from './back-office.service';
import { ReviewController } from './review.controller';

@Module({
  imports: [AuthModule, MarketsModule, DisputesModule],
  controllers: [ReviewController],
  providers: [AuditService, BackOfficeService],
})
export class ReviewModule {}
