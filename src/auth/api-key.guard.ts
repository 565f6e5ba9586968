import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { routeMetadata } from '../common/route-metadata';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { PARTNER_AUTH } from './partner-auth.decorator';
import { PartnerKeysService } from './partner-keys.service';

export const needsPartnerKey = routeMetadata<boolean>(PARTNER_AUTH);

/** The request's partner key, if it sent one. */
export const partnerKeyOf = (request: Request): string | undefined => request.header('x-api-key')?.trim() || undefined;

/**
 * Authenticates partner routes by `x-api-key` (4010 missing, 4011 unknown or revoked; an
 * address that failed too often was refused before: FailedAuthGuard).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly partnerKeys: PartnerKeysService,
    private readonly failedAuth: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    return needsPartnerKey(context) ? this.authenticate(context) : true;
  }

  private async authenticate(context: ExecutionContext): Promise<boolean> {

    const request = context.switchToHttp().getRequest<ServiceRequest>();
    const apiKey = partnerKeyOf(request);
    if (!apiKey) throw new ApiError(ErrorCatalogue.API_KEY_REQUIRED);
    const partner = await this.partnerKeys.authenticate(apiKey);
    if (!partner) {
      await this.failedAuth.recordFailure(request);
      throw new ApiError(ErrorCatalogue.API_KEY_INVALID);
    }
    request.context.partner = partner;
    return true;
  }
}
