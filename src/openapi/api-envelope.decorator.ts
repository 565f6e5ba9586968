import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, getSchemaPath } from '@nestjs/swagger';
import { SUCCESS } from '../common/envelope';
import { ErrorCatalogue, type ErrorName } from '../common/error-catalogue';
import { ErrorEnvelope } from './responses.schema';

/** Codes any enveloped route can answer; only POST routes list 4001, as bodies are read there only (RFC 9110 gives a GET or DELETE body no meaning). */
const ALWAYS: ErrorName[] = ['PAYLOAD_TOO_LARGE', 'TOO_MANY_REQUESTS', 'INTERNAL', 'SERVICE_UNAVAILABLE', 'SERVER_BUSY'];

const seconds = { type: 'integer', minimum: 0 } as const;

/** The headers of every enveloped answer (rate limits: every enveloped route is limited). */
const ENVELOPE_HEADERS = {
  'x-request-id': { description: 'The id of this request, also in its log line: yours echoed when it is 1-128 of A-Z a-z 0-9 . _ : -', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per minute to this IP (public reads), key (disputes) or admin credential (every admin route together)', schema: { type: 'integer', minimum: 1 } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { description: 'Seconds until the current minute ends', schema: seconds },
  'Retry-After': { description: 'With 4290 and 5031: seconds to wait before trying again', schema: seconds },
} as const;

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

/** Documents an enveloped route: always HTTP 200, the success or error envelope, and the catalogue codes it can answer. */
export function ApiEnvelope(data: Type<unknown>, summary: string, errors: ErrorName[]) {
  const codes = [...new Set([...errors, ...ALWAYS])].map((name) => `\`${ErrorCatalogue[name].code}\` ${ErrorCatalogue[name].msg}`);
  return applyDecorators(
    ApiOperation({ summary }),
    ApiExtraModels(data, ErrorEnvelope),
    ApiOkResponse({
      description: `Always HTTP 200; the envelope's \`code\` tells success (0) from error. Error codes: ${codes.join('; ')}.`,
      schema: { oneOf: [successEnvelopeSchema(data), { $ref: getSchemaPath(ErrorEnvelope) }] },
      headers: ENVELOPE_HEADERS,
    }),
  );
}

/** A path id: the positive integer ParseIdPipe accepts. */
export const ApiIdParam = (name: string, example: number, description: string) =>
  ApiParam({ name, description, example, schema: { type: 'integer', format: 'int64', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } });

/** Codes every admin route can answer with: credentials, role, malformed input; and a write's body. */
export const ADMIN_READ: ErrorName[] = ['ADMIN_CREDENTIALS_INVALID', 'FORBIDDEN', 'INVALID_REQUEST'];
export const ADMIN_WRITE: ErrorName[] = [...ADMIN_READ, 'MALFORMED_JSON', 'PAYLOAD_TOO_LARGE'];
