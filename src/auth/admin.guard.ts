import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ApiError, ErrorCatalogue } from '../common/error-catalogue';
import type { PresentedCredential } from '../common/request-context';
import { type AdminRole, ROLES } from './admin-role';
import { CredentialGate } from './credential-gate';
import { hashKey } from './key-hashing';
import { type AdminActor, ReviewersService } from './reviewers.service';

declare module '../common/request-context' {
  interface RequestContext {
    /** The back-office caller authenticated by `Authorization: Bearer`, on admin routes (@CurrentActor). */
    actor?: AdminActor;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** What `Authorization` sent: its Bearer token; a malformed one is hashed as it is, its rate-limit budget. */
function presented(req: Request): PresentedCredential | undefined {
  const header = req.header('authorization');
  const sent = header?.trim() || undefined;
  if (sent === undefined) return undefined;
  const token = BEARER.exec(header!)?.[1];
  return { secret: token, hash: hashKey(token ?? sent) };
}

/** Admin routes (@Roles): the actor of the Bearer credential, 4012 without a valid one, 4031 when its role is not among the route's. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly gate: CredentialGate,
    private readonly reviewers: ReviewersService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const roles = this.reflector.getAllAndOverride<AdminRole[] | undefined>(ROLES, [context.getHandler(), context.getClass()]);
    if (!roles?.length) throw new Error(`${context.getClass().name}.${context.getHandler().name} runs AdminGuard without @Roles`);
    const request = await this.gate.admit(context, presented(context.switchToHttp().getRequest<Request>()));
    const credential = request.context.credential;
    if (credential?.secret === undefined) throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
    const actor = await this.reviewers.authenticate(credential.hash);
    if (!actor) {
      await this.gate.refused(request);
      throw new ApiError(ErrorCatalogue.ADMIN_CREDENTIALS_INVALID);
    }
    if (!roles.includes(actor.role)) throw new ApiError(ErrorCatalogue.FORBIDDEN);
    request.context.actor = actor;
    return true;
  }
}
