import { type INestApplication, Injectable, type OnModuleInit } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ErrorCatalogue } from '../common/error-catalogue';
import { finishDocument } from './finish-document';

export const PARTNER_KEY_SCHEME = 'partner-key';
export const ADMIN_KEY_SCHEME = 'admin-key';

const ERROR_TABLE = [
  '| code | msg |',
  '|---|---|',
  ...Object.values(ErrorCatalogue).map((entry) => `| ${entry.code} | ${entry.msg} |`),
].join('\n');

const DESCRIPTION = `
Settlement records of prediction markets, partner disputes, and the review back office.

**Envelope.** Every response under \`/oracle\` and \`/admin\` (and any unknown path) is HTTP 200 with a JSON
envelope; success or failure is the \`code\` field only:

- success: \`{"code":0,"msg":"success","data":{...}}\`
- error: \`{"code":N,"msg":"...","detail":"..."}\` (\`detail\` adds specifics, e.g. every offending field for 4000)

The ops endpoints (\`/health/live\`, \`/health/ready\`; \`/metrics\` on its own port, METRICS_PORT) use real HTTP status codes instead.
Every response carries \`x-request-id\`. Rate-limited routes carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`
and \`X-RateLimit-Reset\`; over the limit: code 4290 with \`Retry-After\`.

**Error codes.**

${ERROR_TABLE}
`;

/** The OpenAPI document at /docs-json and its UI at /docs. */
export function setUpApiDocs(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Settlement oracle API')
    .setDescription(DESCRIPTION)
    .setVersion('1')
    // Same origin as the document: whoever serves /docs-json serves the API.
    .addServer('/', 'This instance')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Partner API key' }, PARTNER_KEY_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'soa_ key', description: 'Admin or reviewer key, or ADMIN_MASTER_KEY' }, ADMIN_KEY_SCHEME)
    .build();
  // The service is not open source: an SPDX reference of our own, as OpenAPI 3.1 allows.
  config.info.license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } as typeof config.info.license;
  const document = finishDocument(SwaggerModule.createDocument(app, config, { operationIdFactory: publishedOperationId }));
  // A reference only: no "Try it out", so the page never takes a key (clients call the API themselves).
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { supportedSubmitMethods: [], persistAuthorization: false },
    customCss: '.swagger-ui .auth-wrapper { display: none }',
  });
}

/**
 * Mounts the API docs when Nest initializes the application: Nest calls onModuleInit once it
 * has registered the middleware and the controllers' routes, and before its not-found handler.
 * Mounted earlier (as the application is created), the docs were answered ahead of the
 * middleware: without a request id or a log line.
 */
@Injectable()
export class ApiDocsRoutes implements OnModuleInit {
  private app?: INestApplication;

  /** The application whose docs to mount (createApp; the application is not injectable). */
  attach(app: INestApplication): void {
    this.app = app;
  }

  onModuleInit(): void {
    if (this.app) setUpApiDocs(this.app);
  }
}

/**
 * Generated clients name their methods by operation id: the admin routes keep the ids they were
 * published with (ReviewController_*) whichever module's controller serves them now.
 */
const ADMIN_CONTROLLERS = new Set(['AccountsController', 'MarketsAdminController', 'ReviewController']);
function publishedOperationId(controller: string, method: string): string {
  return `${ADMIN_CONTROLLERS.has(controller) ? 'ReviewController' : controller}_${method}`;
}
