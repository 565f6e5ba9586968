import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AccountsController } from './accounts.controller';
import { AdminAccounts } from './admin-accounts';
import { AuthRepository } from './auth.repository';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { PartnerKeysService } from './partner-keys.service';
import { ReviewersService } from './reviewers.service';

/** Partners, their API keys and reviewer accounts; their guard (AuthGuard) is registered in AppModule. */
@Module({
  imports: [AuditModule],
  controllers: [AccountsController],
  providers: [AuthRepository, PartnerKeysService, ReviewersService, FailedAuthLimiter, AdminAccounts],
  exports: [PartnerKeysService, ReviewersService, FailedAuthLimiter],
})
export class AuthModule {}
