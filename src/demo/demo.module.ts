import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { DisputesModule } from '../disputes/disputes.module';
import { MarketsModule } from '../markets/markets.module';
import { DemoDataService } from './demo-data.service';

@Module({
  imports: [AuthModule, MarketsModule, DisputesModule],
  providers: [DemoDataService],
})
export class DemoModule {}
