import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { routeMetadata } from '../common/route-metadata';
import { ADMIN_AUTH } from './admin-auth.decorator';
import { FailedAuthLimiter } from './failed-auth-limiter';
import type { AdminRole } from './admin-role';
import { ReviewersService } from './reviewers.service';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
export const requiredRole = routeMetadata<AdminRole>(ADMIN_AUTH);

/** The request's admin credential (`Authorization: Bearer`), if it sent one. */
export const bearerOf = (request: Request): string | undefined => BEARER.exec(request.header('authorization') ?? '')?.[1];

/**
 * Authenticates admin routes by `Authorization: Bearer` (4012) and checks the role (4031); an
 * address that failed too often was refused before: FailedAuthGuard.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly reviewers: ReviewersService,
    private readonly failedAuth: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const required = requiredRole(context);
    return required ? this.authenticate(context, required) : true;
  }

  private async authenticate(context: ExecutionContext, required: AdminRole): Promise<boolean> {

    const request = context.switchToHttp().getRequest<ServiceRequest>();
    const key = bearerOf(request);
    if (!key) throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
    const actor = await this.reviewers.authenticate(key);
    if (!actor) {
      await this.failedAuth.recordFailure(request);
      throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
    }
    if (required === 'admin' && actor.role !== 'admin') throw new ApiError(ErrorCatalogue.FORBIDDEN);
    request.context.actor = actor;
    return true;
  }
}
