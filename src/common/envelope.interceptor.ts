import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import type { SuccessEnvelope } from './error-catalogue';
import type { ServiceRequest } from './request-context';

/**
 * Wraps a handler's return value in the success envelope. A body-parser failure held back
 * by the body middleware is raised here, after the guards: authentication is checked first.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<SuccessEnvelope<unknown>> {
    const request = context.switchToHttp().getRequest<ServiceRequest>();
    if (request.context?.bodyError) throw request.context.bodyError;
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((data: unknown) => {
        response.locals.envelopeCode = 0;
        return { code: 0, msg: 'success', data };
      }),
    );
  }
}
