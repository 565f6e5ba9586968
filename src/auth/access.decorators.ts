import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { ServiceRequest } from '../common/request-context';
import type { AdminRole } from './admin-role';
import type { AuthenticatedPartner } from './partner-keys.service';
import type { AdminActor } from './reviewers.service';

export const ACCESS = 'auth:access';

/** The OpenAPI security schemes of the two credentials (declared in api-docs/api-docs.ts). */
export const PARTNER_KEY_SCHEME = 'partner-key';
export const ADMIN_KEY_SCHEME = 'admin-key';

/** Who may call a route, as AuthGuard reads it. */
export type Access = { credential: 'none' } | { credential: 'partner-key' } | { credential: 'admin'; role: AdminRole };

/** The route takes no credential. */
export const Public = () => SetMetadata(ACCESS, { credential: 'none' } satisfies Access);

/** The route needs a partner `x-api-key`; the OpenAPI document shows it under that scheme. */
export const PartnerKey = () =>
  applyDecorators(SetMetadata(ACCESS, { credential: 'partner-key' } satisfies Access), ApiSecurity(PARTNER_KEY_SCHEME));

/** The route needs an admin `Authorization: Bearer` credential of at least `role`: `reviewer` routes admit both roles. */
export const Admin = (role: AdminRole) =>
  applyDecorators(SetMetadata(ACCESS, { credential: 'admin', role } satisfies Access), ApiBearerAuth(ADMIN_KEY_SCHEME));

export const CurrentPartner = createParamDecorator(
  (_: unknown, context: ExecutionContext): AuthenticatedPartner => context.switchToHttp().getRequest<ServiceRequest>().context.partner!,
);

export const CurrentActor = createParamDecorator(
  (_: unknown, context: ExecutionContext): AdminActor => context.switchToHttp().getRequest<ServiceRequest>().context.actor!,
);
