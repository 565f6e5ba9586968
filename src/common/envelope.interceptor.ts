import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { type SuccessEnvelope, successEnvelope, successEnvelopeJson } from './envelope';
import { JsonText } from './json-text';
import { isRawResponse } from './raw-response.decorator';

/** Wraps a handler's result in the success envelope; a JsonText is spliced in as serialized. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (isRawResponse(context)) return next.handle();
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((data: unknown): SuccessEnvelope<unknown> | string => {
        response.locals.envelopeCode = 0;
        if (data instanceof JsonText) {
          response.setHeader('content-type', 'application/json; charset=utf-8');
          return successEnvelopeJson(data.json);
        }
        return successEnvelope(data);
      }),
    );
  }
}
