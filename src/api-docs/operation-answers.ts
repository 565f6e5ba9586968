import type { OpenAPIObject } from '@nestjs/swagger';
import { ACCESS, type Access } from '../auth/access.decorators';
import { type AdminRole, ROLES } from '../auth/admin-role';
import { ErrorCatalogue, type ErrorName } from '../common/error-catalogue';
import { JSON_BODY } from '../edge/json-body.interceptor';
import { envelopeHeaders, errorEnvelopeSchema, OWN_ERRORS } from '../openapi/api-envelope.decorator';
import { RATE_LIMIT, type RateLimitKind } from '../rate-limits/rate-limits';

/**
 * What any enveloped request can be answered: a malformed or too slow request (4000), headers
 * over the limit (4130), too many on one connection or from one address (4290), and the
 * instance's own failures.
 */
const ANY_ROUTE: ErrorName[] = ['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'TOO_MANY_REQUESTS', 'INTERNAL', 'SERVICE_UNAVAILABLE', 'SERVER_BUSY'];
/** A body is read on POST routes only (@JsonBody), its size checked: 4001 and 4130. */
const A_BODY: ErrorName[] = ['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE'];

function accessErrors(access: Access | undefined, roles: AdminRole[] | undefined): ErrorName[] {
  if (access === 'partner-key') return ['API_KEY_REQUIRED', 'API_KEY_INVALID'];
  if (access === 'admin') return roles?.includes('reviewer') ? ['ADMIN_CREDENTIALS_INVALID'] : ['ADMIN_CREDENTIALS_INVALID', 'FORBIDDEN'];
  return [];
}

const BUDGET_OF: Record<RateLimitKind, string> = {
  public: 'to this client IP (public reads)',
  dispute: 'to this API key (dispute filings)',
  changes: 'to this API key (changes feed reads)',
  admin: 'to this admin credential (every admin route together)',
};

/** As Reflector.getAllAndOverride: the handler's, else its controller's. */
const metadataOf = <T>(key: string, controller: Function, handler: Function): T | undefined =>
  Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller);

/** The codes an enveloped route can answer, in ascending order; undefined for a route without the envelope. */
export function routeErrors(controller: Function, handler: Function): ErrorName[] | undefined {
  const own = Reflect.getMetadata(OWN_ERRORS, handler) as ErrorName[] | undefined;
  if (own === undefined) return undefined;
  const names = new Set<ErrorName>([
    ...ANY_ROUTE,
    ...accessErrors(metadataOf<Access>(ACCESS, controller, handler), metadataOf<AdminRole[]>(ROLES, controller, handler)),
    ...(Reflect.getMetadata(JSON_BODY, handler) === true ? A_BODY : []),
    ...own,
  ]);
  return [...names].sort((a, b) => ErrorCatalogue[a].code - ErrorCatalogue[b].code);
}

type Operation = { operationId?: string; responses: Record<string, { description?: string; headers?: unknown; content?: Record<string, { schema: { oneOf: unknown[] } }> }> };

/** Completes each enveloped operation's answer from its route's metadata: its error envelope, its codes in words, its headers. */
export function describeAnswers(document: OpenAPIObject, routes: { controller: Function; method: string; operationId: string }[]): void {
  const operations = new Map<string, Operation>();
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path) as Operation[]) if (operation?.operationId) operations.set(operation.operationId, operation);
  }
  for (const { controller, method, operationId } of routes) {
    const handler = (controller.prototype as Record<string, Function>)[method];
    const names = routeErrors(controller, handler);
    const answer = operations.get(operationId)?.responses['200'];
    if (names === undefined || !answer) continue;
    const codes = names.map((name) => `\`${ErrorCatalogue[name].code}\` ${ErrorCatalogue[name].msg}`);
    answer.description = `Always HTTP 200; the envelope's \`code\` tells success (0) from error. Error codes: ${codes.join('; ')}.`;
    const budget = metadataOf<RateLimitKind>(RATE_LIMIT, controller, handler);
    answer.headers = envelopeHeaders(budget && BUDGET_OF[budget]);
    answer.content!['application/json'].schema.oneOf.push(errorEnvelopeSchema(`${operationId}Error`, names));
  }
}
