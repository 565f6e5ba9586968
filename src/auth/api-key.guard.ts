import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { CredentialGate } from './credential-gate';
import { hashKey } from './key-hashing';
import { type AuthenticatedPartner, PartnerKeysService } from './partner-keys.service';

declare module '../common/request-context' {
  interface RequestContext {
    /** The partner authenticated by `x-api-key`, on partner routes (@CurrentPartner). */
    partner?: AuthenticatedPartner;
  }
}

/** Partner routes (@PartnerKey): the partner, and so its source, of the `x-api-key` sent; 4010 without one, 4011 for an unknown one. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly gate: CredentialGate,
    private readonly partnerKeys: PartnerKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const key = context.switchToHttp().getRequest<ServiceRequest>().header('x-api-key')?.trim() || undefined;
    const request = await this.gate.admit(context, key === undefined ? undefined : { secret: key, hash: hashKey(key) });
    const credential = request.context.credential;
    if (credential === undefined) throw new ApiError(ErrorCatalogue.API_KEY_REQUIRED);
    const partner = await this.partnerKeys.authenticate(credential.hash);
    if (!partner) {
      await this.gate.refused(request);
      throw new ApiError(ErrorCatalogue.API_KEY_INVALID);
    }
    request.context.partner = partner;
    return true;
  }
}
