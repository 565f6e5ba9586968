import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { ServiceRequest } from '../common/request-context';
import type { AuthenticatedPartner } from './partner-keys.service';

export const PARTNER_AUTH = 'auth:partner';

/** The route needs a partner `x-api-key`; ApiKeyGuard resolves the partner's source from it. */
export const PartnerAuth = () => SetMetadata(PARTNER_AUTH, true);

/** The partner authenticated for this request. */
export const CurrentPartner = createParamDecorator(
  (_: unknown, context: ExecutionContext): AuthenticatedPartner =>
    context.switchToHttp().getRequest<ServiceRequest>().context.partner!,
);
