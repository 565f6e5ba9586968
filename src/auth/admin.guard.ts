import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { ServiceRequest } from '../common/request-context';
import { ADMIN_AUTH } from './admin-auth.decorator';
import type { AdminRole } from './reviewer.entity';
import { ReviewersService } from './reviewers.service';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Authenticates admin routes by `Authorization: Bearer` (4012) and checks the role (4031). */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly reviewers: ReviewersService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const required = this.reflector.getAllAndOverride<AdminRole | undefined>(ADMIN_AUTH, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!required) return true;

    const request = context.switchToHttp().getRequest<ServiceRequest>();
    const key = BEARER.exec(request.header('authorization') ?? '')?.[1];
    const actor = key ? await this.reviewers.authenticate(key) : null;
    if (!actor) throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
    if (required === 'admin' && actor.role !== 'admin') throw new ApiError(ErrorCatalogue.FORBIDDEN);
    request.context.actor = actor;
    return true;
  }
}
