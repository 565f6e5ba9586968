import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { PresentedCredential, ServiceRequest } from '../common/request-context';
import { routeMetadata } from '../common/route-metadata';
import { RateLimitGuard } from '../rate-limits/rate-limit.guard';
import { ACCESS, type Access } from './access.decorators';
import type { AdminRole } from './admin-role';
import { FailedAuthLimiter } from './failed-auth-limiter';
import { hashKey } from './key-hashing';
import { type AuthenticatedPartner, PartnerKeysService } from './partner-keys.service';
import { type AdminActor, ReviewersService } from './reviewers.service';

declare module '../common/request-context' {
  interface RequestContext {
    /** The partner authenticated by `x-api-key`, on partner routes. */
    partner?: AuthenticatedPartner;
    /** The back-office caller authenticated by `Authorization: Bearer`, on admin routes. */
    actor?: AdminActor;
  }
}

const accessOf = routeMetadata<Access>(ACCESS);
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** What `req` sent for `access`: its `x-api-key`, or its `Authorization` (a Bearer token in it). */
function presented(req: Request, access: Access): PresentedCredential | undefined {
  if (access.credential === 'partner-key') {
    const key = req.header('x-api-key')?.trim() || undefined;
    return key === undefined ? undefined : { secret: key, hash: hashKey(key) };
  }
  if (access.credential === 'admin') {
    const header = req.header('authorization');
    const sent = header?.trim() || undefined;
    if (sent === undefined) return undefined;
    const token = BEARER.exec(header!)?.[1];
    return { secret: token, hash: hashKey(token ?? sent) };
  }
  return undefined;
}

/** An address over its failed-authentication budget is refused before its credential takes a rate-limit window. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly failedAuth: FailedAuthLimiter,
    private readonly rateLimits: RateLimitGuard,
    private readonly partnerKeys: PartnerKeysService,
    private readonly reviewers: ReviewersService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = accessOf(context);
    if (!access) throw new Error(`${context.getClass().name}.${context.getHandler().name} declares no access (@Public, @PartnerKey or @Admin)`);
    const request = context.switchToHttp().getRequest<ServiceRequest>();
    const credential = presented(request, access);
    request.context.credential = credential;
    if (credential?.secret !== undefined) this.failedAuth.assertAllowed(request);
    await this.rateLimits.canActivate(context);
    if (access.credential === 'partner-key') request.context.partner = await this.partner(request, credential);
    else if (access.credential === 'admin') request.context.actor = await this.admin(request, credential, access.role);
    return true;
  }

  private async partner(request: Request, credential: PresentedCredential | undefined) {
    if (credential?.secret === undefined) throw new ApiError(ErrorCatalogue.API_KEY_REQUIRED);
    const partner = await this.partnerKeys.authenticate(credential.hash);
    if (partner) return partner;
    await this.failedAuth.recordFailure(request);
    throw new ApiError(ErrorCatalogue.API_KEY_INVALID);
  }

  private async admin(request: Request, credential: PresentedCredential | undefined, required: AdminRole) {
    if (credential?.secret === undefined) throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
    const actor = await this.reviewers.authenticate(credential.hash);
    if (!actor) {
      await this.failedAuth.recordFailure(request);
      throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
    }
    if (required === 'admin' && actor.role !== 'admin') throw new ApiError(ErrorCatalogue.FORBIDDEN);
    return actor;
  }
}
