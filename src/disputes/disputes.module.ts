import { Module } from '@nestjs/common';
import { MarketsModule } from '../markets/markets.module';
import { DisputesController } from './disputes.controller';
import { DisputesRepository } from './disputes.repository';
import { DisputesService } from './disputes.service';

@Module({
  imports: [MarketsModule],
  controllers: [DisputesController],
  providers: [DisputesRepository, DisputesService],
  exports: [DisputesService],
})
export class DisputesModule {}
