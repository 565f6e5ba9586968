import { Module } from '@nestjs/common';
import { PartnerKeysService } from './partner-keys.service';
import { ReviewersService } from './reviewers.service';

/** Partners' API keys and back-office accounts; the guards are registered in AppModule. */
@Module({
  providers: [PartnerKeysService, ReviewersService],
  exports: [PartnerKeysService, ReviewersService],
})
export class AuthModule {}
