import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { PARTNER_AUTH } from './partner-auth.decorator';
import { PartnerKeysService } from './partner-keys.service';

/** Authenticates partner routes by `x-api-key` (4010 missing, 4011 unknown or revoked). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly partnerKeys: PartnerKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const required = this.reflector.getAllAndOverride<boolean>(PARTNER_AUTH, [context.getHandler(), context.getClass()]);
    if (!required) return true;

    const request = context.switchToHttp().getRequest<ServiceRequest>();
    const apiKey = request.header('x-api-key')?.trim();
    if (!apiKey) throw new ApiError(ErrorCatalogue.API_KEY_REQUIRED);
    const partner = await this.partnerKeys.authenticate(apiKey);
    if (!partner) throw new ApiError(ErrorCatalogue.API_KEY_INVALID);
    request.context.partner = partner;
    return true;
  }
}
