import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { ADMIN_KEY_SCHEME } from '../openapi/api-docs';
import type { ServiceRequest } from '../common/request-context';
import type { AdminRole } from './admin-role';
import type { AdminActor } from './reviewers.service';

export const ADMIN_AUTH = 'auth:admin';

/**
 * The route needs an admin `Authorization: Bearer` credential with at least this role:
 * `reviewer` routes are open to both roles, `admin` routes to admins only. AdminGuard enforces it;
 * the OpenAPI document shows the route under the bearer scheme.
 */
export const AdminAuth = (role: AdminRole) => applyDecorators(SetMetadata(ADMIN_AUTH, role), ApiBearerAuth(ADMIN_KEY_SCHEME));

/** The admin caller of this request. */
export const CurrentActor = createParamDecorator(
  (_: unknown, context: ExecutionContext): AdminActor => context.switchToHttp().getRequest<ServiceRequest>().context.actor!,
);
