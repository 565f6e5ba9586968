import { Module } from '@nestjs/common';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { PartnerKeysService } from './partner-keys.service';
import { ReviewersService } from './reviewers.service';

/** Partners' API keys and back-office accounts; the guards are registered in AppModule. */
@Module({
  providers: [PartnerKeysService, ReviewersService, FailedAuthLimiter],
  exports: [PartnerKeysService, ReviewersService, FailedAuthLimiter],
})
export class AuthModule {}
