import { type INestApplication, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ADMIN_KEY_SCHEME, PARTNER_KEY_SCHEME } from '../auth/access.decorators';
import { ErrorCatalogue } from '../common/error-catalogue';
import { finishDocument } from './finish-document';
import { describeAnswers } from './operation-answers';
import { WebhookEvent } from '../webhooks/webhooks.schema';

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

const header = (name: string, pattern: string, description: string) => ({ name, in: 'header', required: true, schema: { type: 'string', pattern }, description });

/** What the service POSTs to partners' webhooks (contract §7): OpenAPI 3.1's top-level `webhooks`. */
const WEBHOOKS = {
  marketChange: {
    post: {
      operationId: 'marketChange',
      summary: 'An event of the partner\'s source, POSTed to each of its webhooks',
      description:
        'Every event of the changes feed of your source, signed as Standard Webhooks 1.0 says: verify it with any Standard Webhooks ' +
        'library and the secret of the webhook (`whsec_…`). Delivery is at least once: an attempt succeeds on a 2xx answer within 10 s; ' +
        'otherwise it is retried 12–24 s later, then after delays doubling up to an hour, then hourly: 33 attempts over 24.7 to 25.7 hours, then ' +
        'given up (the event stays in the feed). Redirects are not followed; at most 64 KiB of an answer is read. Tell retries apart by ' +
        '`webhook-id`, which is the same on every attempt; events may arrive out of order (retries, two attempts at once): ' +
        '`data.sequence` orders them. Sent with `User-Agent: settlement-oracle-webhooks/1`; verify the signature on the body\'s bytes as ' +
        'received (parsed and serialized again, they differ).',
      security: [],
      parameters: [
        header('webhook-id', '^evt_[0-9]+$', 'The event\'s id (`evt_<sequence>`), the same on every attempt and redelivery'),
        header('webhook-timestamp', '^[0-9]+$', 'Unix seconds of this attempt'),
        header(
          'webhook-signature',
          '^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)?$',
          '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`; two, space-separated, for 24 hours after the secret is rotated',
        ),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } } },
      responses: { '2XX': { description: 'Received (within 10 s); any other answer, or none, is retried' } },
    },
  },
};

/** The OpenAPI document at /docs-json and its UI at /docs; `controllers` to describe each route's answers from its metadata. */
export function setUpApiDocs(app: INestApplication, controllers: Function[]): void {
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
  const document = finishDocument({
    ...SwaggerModule.createDocument(app, config, { operationIdFactory: publishedOperationId, extraModels: [WebhookEvent] }),
    webhooks: WEBHOOKS,
  } as OpenAPIObject);
  const routes = controllers.flatMap((controller) =>
    Object.getOwnPropertyNames(controller.prototype).map((method) => ({ controller, method, operationId: publishedOperationId(controller.name, method) })),
  );
  describeAnswers(document, routes);
  // A reference only: no "Try it out", so the page never takes a key (clients call the API themselves).
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    swaggerOptions: { supportedSubmitMethods: [], persistAuthorization: false },
    customCss: '.swagger-ui .auth-wrapper { display: none }',
  });
}

/** Mounted in onModuleInit, after Nest's middleware and routes but before its not-found handler: docs requests get a request id and a log line like any other. */
@Injectable()
export class ApiDocsRoutes implements OnModuleInit {
  private app?: INestApplication;

  constructor(private readonly discovery: DiscoveryService) {}

  /** The application whose docs to mount (createApp; the application is not injectable). */
  attach(app: INestApplication): void {
    this.app = app;
  }

  onModuleInit(): void {
    if (this.app) setUpApiDocs(this.app, this.discovery.getControllers().map((wrapper) => wrapper.metatype as Function));
  }
}

/** Generated clients name their methods by operation id: admin routes keep their published ids (ReviewController_*) whichever controller serves them. */
const ADMIN_CONTROLLERS = new Set(['AccountsController', 'MarketsAdminController', 'ReviewController']);
function publishedOperationId(controller: string, method: string): string {
  return `${ADMIN_CONTROLLERS.has(controller) ? 'ReviewController' : controller}_${method}`;
}
