import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { routeMetadata } from '../common/route-metadata';
import { ADMIN_AUTH } from './admin-auth.decorator';
import { FailedAuthLimiter } from './failed-auth-limiter';
import type { AdminRole } from './reviewer.entity';
import { ReviewersService } from './reviewers.service';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const requiredRole = routeMetadata<AdminRole>(ADMIN_AUTH);

/**
 * Authenticates admin routes by `Authorization: Bearer` (4012; 4290 for an address that failed
 * too often) and checks the role (4031).
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

    const http = context.switchToHttp();
    const request = http.getRequest<ServiceRequest>();
    const key = BEARER.exec(request.header('authorization') ?? '')?.[1];
    if (!key) throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
    this.failedAuth.assertAllowed(request, http.getResponse());
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
