import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { ChangesController } from './changes-feed/changes.controller';
import { ChangesFeed } from './changes-feed/changes-feed';
import { MarketAdmin } from './market-admin';
import { Market } from './market.entity';
import { MarketWrites } from './market-writes';
import { MarketsAdminController } from './markets-admin.controller';
import { MarketsController } from './markets.controller';
import { MarketsRepository } from './markets.repository';
import { MarketsService } from './markets.service';
import { Proof } from './proof.entity';
import { PublicRecords } from './public-records/public-records';

/** Markets: their public records and changes feed for partners, their administration for admins. */
@Module({
  imports: [TypeOrmModule.forFeature([Market, Proof]), AuditModule, AuthModule, RateLimitsModule],
  controllers: [ChangesController, MarketsController, MarketsAdminController],
  providers: [MarketsRepository, MarketsService, PublicRecords, ChangesFeed, MarketAdmin, MarketWrites],
  exports: [MarketsService, MarketWrites],
})
export class MarketsModule {}
