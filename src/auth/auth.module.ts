import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyGuard } from './api-key.guard';
import { PartnerKeysService } from './partner-keys.service';

@Module({
  providers: [PartnerKeysService, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [PartnerKeysService],
})
export class AuthModule {}
