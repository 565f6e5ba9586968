import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

type Json = Record<string, any>;

/** Paths the API document does not describe: the docs themselves and the back office page. */
const UNDOCUMENTED = /^\/(docs|back-office)([/?-]|$)/;

/** An answer as a test received it. */
export interface Answer {
  method: string;
  /** The request target (path and query string). */
  target: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as text. */
  text: string;
}

/** A reference into the document, from the names on the way (each escaped as JSON Pointer wants). */
const ref = (...parts: string[]) => `doc#/${parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/**
 * Checks answers against the service's own OpenAPI document (served at /docs-json): status,
 * content type, body and declared headers of the operation the request names, the error
 * envelope for paths it does not name. What a generated client would rely on, checked on
 * every answer an e2e test receives.
 */
export class OpenApiValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: { method: string; pattern: RegExp; literal: number; path: string }[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    for (const format of ['int64', 'int32']) this.ajv.addFormat(format, { type: 'number', validate: () => true });
    this.ajv.addSchema(document, 'doc');
    for (const [path, operations] of Object.entries<Json>(document.paths)) {
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const literal = path.replace(/\{[^}]+\}/g, '').length;
      for (const method of Object.keys(operations)) this.routes.push({ method: method.toUpperCase(), pattern, literal, path });
    }
  }

  /** Whether `value` conforms to the document's component schema `name` (a request body, say). */
  conforms(name: string, value: unknown): boolean {
    return this.validator(ref('components', 'schemas', name))(value) as boolean;
  }

  /** The problems of `answer` against the document; empty when it conforms. */
  problems(answer: Answer): string[] {
    const path = answer.target.split('?')[0];
    if (UNDOCUMENTED.test(path)) return [];
    // A CORS preflight's answer belongs to the CORS protocol, not to the API's operations
    // (cors.e2e-spec checks its envelope).
    if (answer.method.toUpperCase() === 'OPTIONS' && answer.headers['access-control-allow-methods'] !== undefined) return [];
    const route = this.routes
      .filter((candidate) => candidate.method === answer.method.toUpperCase() && candidate.pattern.test(path))
      .sort((a, b) => b.literal - a.literal)[0];
    if (!route) return this.check(ref('components', 'schemas', 'ErrorEnvelope'), answer, 'application/json');
    const operation = ['paths', route.path, route.method.toLowerCase()];
    const responses: Json = this.document.paths[route.path][route.method.toLowerCase()].responses;
    const response = responses[String(answer.status)] ?? responses.default;
    if (!response) return [`HTTP ${answer.status} is not an answer ${route.method} ${route.path} declares`];
    const problems: string[] = [];
    const status = responses[String(answer.status)] ? String(answer.status) : 'default';
    const mediaType = Object.keys(response.content ?? {})[0];
    if (mediaType) problems.push(...this.check(ref(...operation, 'responses', status, 'content', mediaType, 'schema'), answer, mediaType));
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) continue;
      const validate = this.validator(ref(...operation, 'responses', status, 'headers', name, 'schema'));
      const typed = header.schema?.type === 'integer' ? Number(value) : value;
      if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
    }
    return problems;
  }

  /** Throws, naming every problem, when `answer` does not conform. */
  assert(answer: Answer): void {
    const problems = this.problems(answer);
    if (problems.length > 0) {
      throw new Error(`${answer.method} ${answer.target} answered outside the OpenAPI document:\n  ${problems.join('\n  ')}\n  body: ${answer.text.slice(0, 600)}`);
    }
  }

  private check(schema: string, answer: Answer, mediaType: string): string[] {
    const contentType = String(answer.headers['content-type'] ?? '');
    if (mediaType === 'application/json') {
      if (!/^application\/json/.test(contentType)) return [`content-type ${contentType}, the document says ${mediaType}`];
      let body: unknown;
      try {
        body = JSON.parse(answer.text);
      } catch {
        return ['the body is not JSON'];
      }
      const validate = this.validator(schema);
      return validate(body) ? [] : [`body: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`];
    }
    return contentType.split(';')[0] === mediaType.split(';')[0] ? [] : [`content-type ${contentType}, the document says ${mediaType}`];
  }

  private validator(schema: string): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile({ $ref: schema });
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}
