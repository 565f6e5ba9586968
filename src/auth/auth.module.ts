import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { AccountsController } from './accounts.controller';
import { AdminAccounts } from './admin-accounts';
import { ApiKey } from './api-key.entity';
import { AuthRepository } from './auth.repository';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { PartnerAccount } from './partner-account.entity';
import { PartnerKeysService } from './partner-keys.service';
import { ReviewerAccount } from './reviewer-account.entity';
import { ReviewersService } from './reviewers.service';

/** Partners, their API keys and reviewer accounts; their guard (AuthGuard) is registered in AppModule. */
@Module({
  imports: [TypeOrmModule.forFeature([PartnerAccount, ApiKey, ReviewerAccount]), AuditModule],
  controllers: [AccountsController],
  providers: [AuthRepository, PartnerKeysService, ReviewersService, FailedAuthLimiter, AdminAccounts],
  exports: [PartnerKeysService, ReviewersService, FailedAuthLimiter],
})
export class AuthModule {}
