import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { ServiceRequest } from '../common/request-context';
import type { AdminRole } from './reviewer.entity';
import type { AdminActor } from './reviewers.service';

export const ADMIN_AUTH = 'auth:admin';

/**
 * The route needs an admin `Authorization: Bearer` credential with at least this role:
 * `reviewer` routes are open to both roles, `admin` routes to admins only.
 */
export const AdminAuth = (role: AdminRole) => SetMetadata(ADMIN_AUTH, role);

/** The admin caller of this request. */
export const CurrentActor = createParamDecorator(
  (_: unknown, context: ExecutionContext): AdminActor => context.switchToHttp().getRequest<ServiceRequest>().context.actor!,
);
