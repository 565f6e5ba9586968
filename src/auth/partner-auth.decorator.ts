import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import { PARTNER_KEY_SCHEME } from '../openapi/api-docs';
import type { ServiceRequest } from '../common/request-context';
import type { AuthenticatedPartner } from './partner-keys.service';

export const PARTNER_AUTH = 'auth:partner';

/**
 * The route needs a partner `x-api-key`; ApiKeyGuard resolves the partner's source from it.
 * The OpenAPI document shows the route under the x-api-key scheme.
 */
export const PartnerAuth = () => applyDecorators(SetMetadata(PARTNER_AUTH, true), ApiSecurity(PARTNER_KEY_SCHEME));

/** The partner authenticated for this request. */
export const CurrentPartner = createParamDecorator(
  (_: unknown, context: ExecutionContext): AuthenticatedPartner =>
    context.switchToHttp().getRequest<ServiceRequest>().context.partner!,
);
