import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AdminGuard } from './admin.guard';
import { ApiKeyGuard } from './api-key.guard';
import { PartnerKeysService } from './partner-keys.service';
import { ReviewersService } from './reviewers.service';

@Module({
  providers: [
    PartnerKeysService,
    ReviewersService,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_GUARD, useClass: AdminGuard },
  ],
  exports: [PartnerKeysService, ReviewersService],
})
export class AuthModule {}
