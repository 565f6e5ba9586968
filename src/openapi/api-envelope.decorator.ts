import { applyDecorators, SetMetadata, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, getSchemaPath } from '@nestjs/swagger';
import { SUCCESS } from '../common/envelope';
import { ErrorCatalogue, type ErrorName } from '../common/error-catalogue';
import { ErrorEnvelope } from './responses.schema';

/** The codes a route answers of its own (its rules); what its access, body and the edge add is derived (api-docs/operation-answers.ts). */
export const OWN_ERRORS = 'openapi:own-errors';

const seconds = { type: 'integer', minimum: 0 } as const;

/** The headers of every enveloped answer; the X-RateLimit ones on rate-limited routes only, `per` saying whose budget. */
export function envelopeHeaders(per: string | undefined) {
  return {
    'x-request-id': { description: 'The id of this request, also in its log line: yours echoed when it is 1-128 of A-Z a-z 0-9 . _ : -', schema: { type: 'string' } },
    ...(per === undefined
      ? {}
      : {
          'X-RateLimit-Limit': { description: `Requests allowed per minute ${per}`, schema: { type: 'integer', minimum: 1 } },
          'X-RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'integer', minimum: 0 } },
          'X-RateLimit-Reset': { description: 'Seconds until the current minute ends', schema: seconds },
        }),
    'Retry-After': { description: 'With 4290, 4096 and 5031: seconds to wait before trying again', schema: seconds },
  };
}

function successEnvelopeSchema(data: Type<unknown>) {
  return {
    type: 'object',
    title: `${data.name}Envelope`,
    required: ['code', 'msg', 'data'],
    properties: {
      code: { type: 'integer', enum: [SUCCESS.code], example: SUCCESS.code },
      msg: { type: 'string', enum: [SUCCESS.msg], example: SUCCESS.msg },
      data: { $ref: getSchemaPath(data) },
    },
  };
}

/** The error envelope of one operation: ErrorEnvelope with `code` and `msg` narrowed to `names`, so that a generated client narrows per operation. */
export function errorEnvelopeSchema(title: string, names: readonly ErrorName[]) {
  const entries = names.map((name) => ErrorCatalogue[name]);
  return {
    title,
    allOf: [{ $ref: getSchemaPath(ErrorEnvelope) }],
    required: ['code', 'msg'],
    properties: {
      code: { type: 'integer', enum: entries.map((entry) => entry.code), description: 'The codes this operation can answer' },
      msg: { type: 'string', enum: [...new Set(entries.map((entry) => entry.msg))] },
    },
  };
}

/**
 * Documents an enveloped route: always HTTP 200, the success envelope of `data` or the error
 * envelope. `errors` are the codes of the route's own rules; the document adds those of its
 * access, its body and the edge (api-docs/operation-answers.ts).
 */
export function ApiEnvelope(data: Type<unknown>, summary: string, errors: ErrorName[] = []) {
  return applyDecorators(
    ApiOperation({ summary }),
    ApiExtraModels(data, ErrorEnvelope),
    ApiOkResponse({ schema: { oneOf: [successEnvelopeSchema(data)] } }),
    SetMetadata(OWN_ERRORS, errors),
  );
}

/** A path id: the positive integer ParseIdPipe accepts. */
export const ApiIdParam = (name: string, example: number, description: string) =>
  ApiParam({ name, description, example, schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } });
