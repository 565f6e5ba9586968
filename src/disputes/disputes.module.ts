import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module';
import { MarketsModule } from '../markets/markets.module';
import { Dispute } from './dispute.entity';
import { DisputeFiling } from './dispute-filing';
import { DisputesController } from './disputes.controller';
import { DisputesRepository } from './disputes.repository';
import { DisputesService } from './disputes.service';
import { IdempotencyRecord } from './idempotency-record.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Dispute, IdempotencyRecord]), AuthModule, MarketsModule],
  controllers: [DisputesController],
  providers: [DisputesRepository, DisputesService, DisputeFiling],
  exports: [DisputesService, DisputeFiling],
})
export class DisputesModule {}
