import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, getSchemaPath } from '@nestjs/swagger';
import { ErrorCatalogue, type ErrorName } from '../common/error-catalogue';
import { ErrorEnvelope } from './responses.schema';

/** Codes any enveloped route can answer with, whatever it does. */
const ALWAYS: ErrorName[] = ['TOO_MANY_REQUESTS', 'INTERNAL', 'SERVICE_UNAVAILABLE'];

function successEnvelope(data: Type<unknown>) {
  return {
    type: 'object',
    title: `${data.name}Envelope`,
    required: ['code', 'msg', 'data'],
    properties: {
      code: { type: 'integer', enum: [0], example: 0 },
      msg: { type: 'string', enum: ['success'], example: 'success' },
      data: { $ref: getSchemaPath(data) },
    },
  };
}

/**
 * Documents an enveloped route: HTTP 200 always, with either the success envelope carrying
 * `data` or the error envelope, and the catalogue codes this route can answer with.
 */
export function ApiEnvelope(data: Type<unknown>, summary: string, errors: ErrorName[]) {
  const codes = [...errors, ...ALWAYS].map((name) => `\`${ErrorCatalogue[name].code}\` ${ErrorCatalogue[name].msg}`);
  return applyDecorators(
    ApiOperation({ summary }),
    ApiExtraModels(data, ErrorEnvelope),
    ApiOkResponse({
      description: `Always HTTP 200; the envelope's \`code\` tells success (0) from error. Error codes: ${codes.join('; ')}.`,
      schema: { oneOf: [successEnvelope(data), { $ref: getSchemaPath(ErrorEnvelope) }] },
    }),
  );
}
