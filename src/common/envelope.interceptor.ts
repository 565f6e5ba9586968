import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import type { SuccessEnvelope } from './error-catalogue';
import { JsonText } from './json-text';
import { RAW_RESPONSE } from './raw-response.decorator';
import type { ServiceRequest } from './request-context';
import { routeMetadata } from './route-metadata';

/**
 * Wraps a handler's return value in the success envelope (splicing in `data` that is already
 * serialized, a JsonText). A body-parser failure held back
 * by the body middleware is raised here, after the guards: authentication is checked first.
 */
const isRawResponse = routeMetadata<boolean>(RAW_RESPONSE);

@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (isRawResponse(context)) return next.handle();
    const request = context.switchToHttp().getRequest<ServiceRequest>();
    if (request.context?.bodyError) throw request.context.bodyError;
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((data: unknown): SuccessEnvelope<unknown> | string => {
        response.locals.envelopeCode = 0;
        if (data instanceof JsonText) {
          response.setHeader('content-type', 'application/json; charset=utf-8');
          return data.envelope();
        }
        return { code: 0, msg: 'success', data };
      }),
    );
  }
}
