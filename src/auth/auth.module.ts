import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { RateLimitsModule } from '../rate-limits/rate-limits.module';
import { AccessDeclared } from './access-declared';
import { AccountsController } from './accounts.controller';
import { AdminAccounts } from './admin-accounts';
import { ApiKey } from './api-key.entity';
import { AuthRepository } from './auth.repository';
import { CredentialGate } from './credential-gate';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { PartnerAccount } from './partner-account.entity';
import { PartnerKeysService } from './partner-keys.service';
import { ReviewerAccount } from './reviewer-account.entity';
import { ReviewersService } from './reviewers.service';

// Partners, their API keys and reviewer accounts. ApiKeyGuard and AdminGuard run in the module of the controller that
// names them (@PartnerKey, @Roles): it imports this one for what they inject.
@Module({
  imports: [TypeOrmModule.forFeature([PartnerAccount, ApiKey, ReviewerAccount]), AuditModule, RateLimitsModule, DiscoveryModule],
  controllers: [AccountsController],
  providers: [AuthRepository, PartnerKeysService, ReviewersService, FailedAuthLimiter, CredentialGate, AdminAccounts, AccessDeclared],
  exports: [PartnerKeysService, ReviewersService, CredentialGate],
})
export class AuthModule {}
