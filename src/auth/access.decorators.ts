import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { ServiceRequest } from '../common/request-context';
import { AdminGuard } from './admin.guard';
import { type AdminRole, ROLES } from './admin-role';
import { ApiKeyGuard } from './api-key.guard';
import type { AuthenticatedPartner } from './partner-keys.service';
import type { AdminActor } from './reviewers.service';

export const ACCESS = 'auth:access';

/** The OpenAPI security schemes of the two credentials (declared in api-docs/api-docs.ts). */
export const PARTNER_KEY_SCHEME = 'partner-key';
export const ADMIN_KEY_SCHEME = 'admin-key';

/** Which credential a route takes; every route declares one (checked at start by AccessDeclared). */
export type Access = 'none' | 'partner-key' | 'admin';

/** The route takes no credential. */
export const Public = () => SetMetadata(ACCESS, 'none' satisfies Access);

/** The route needs a partner `x-api-key` (ApiKeyGuard); the OpenAPI document shows it under that scheme. */
export const PartnerKey = () =>
  applyDecorators(SetMetadata(ACCESS, 'partner-key' satisfies Access), UseGuards(ApiKeyGuard), ApiSecurity(PARTNER_KEY_SCHEME));

/** The route needs an admin `Authorization: Bearer` credential (AdminGuard) whose role is one of `roles`. */
export const Roles = (...roles: AdminRole[]) =>
  applyDecorators(SetMetadata(ACCESS, 'admin' satisfies Access), SetMetadata(ROLES, roles), UseGuards(AdminGuard), ApiBearerAuth(ADMIN_KEY_SCHEME));

export const CurrentPartner = createParamDecorator(
  (_: unknown, context: ExecutionContext): AuthenticatedPartner => context.switchToHttp().getRequest<ServiceRequest>().context.partner!,
);

export const CurrentActor = createParamDecorator(
  (_: unknown, context: ExecutionContext): AdminActor => context.switchToHttp().getRequest<ServiceRequest>().context.actor!,
);
